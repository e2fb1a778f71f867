"""Timing results: logon, application launch, copies, folder-redirection syncs.

A timing is one row ``{name, started_at, duration_ms, repetition, scenario,
host}``. Accepted layouts, recognised from content:

* **JSON** -- a list of row objects; an object ``{"timings": [...]}`` whose
  optional top-level ``scenario`` and ``host`` are defaults for rows without
  their own; one row object; or **JSON Lines** (one row object per line, or
  any whitespace-separated sequence of row objects).
* **CSV** -- a header holding at least ``name,started_at,duration_ms``
  (optional ``repetition``, ``host``, ``scenario``, ``unit``, ``subject``,
  ``tags``; any other column is ignored). The delimiter is ``,``, ``;`` or a
  tab, whichever splits the header into those names. ``scenario`` is a JSON
  object or ``k=v;k=v``; extra columns ``scenario.<key>`` add dimensions.
  ``unit`` (``ms`` default, ``us``, ``s``, ``min``, ``h``) says what unit the
  ``duration_ms`` cell is in, for tools that log seconds; values are stored
  in milliseconds. A row's ``column`` in errors is the 1-based field number,
  as a spreadsheet counts columns.
* **PowerShell Measure-Command** output -- the ``Days : 0 ... TotalMilliseconds
  : 1234.5678`` list, once or several times (a loop), or the one-column
  ``TotalMilliseconds`` table of ``... | Select-Object TotalMilliseconds``.
  Block *k* becomes repetition *k* of the timing named by the upload's
  ``name`` (default ``"command"``). The output holds no clock time, so the
  upload must pass ``started_at``; without it the file is rejected rather
  than stamped with an invented time. Blocks are taken to have run back to
  back (as a loop runs them): block *k* starts at ``started_at`` plus the
  durations of blocks 1..k-1.

Timestamps are ISO 8601; one without an offset is read in the upload's
``timezone`` and rejected when there is none. ``tags`` are accepted for
compatibility with agents that send them, but not stored: dimensions belong
in ``scenario``. Rows are yielded one at a time, as loading pulls them, and
never held as a list; a bad row raises inside the load's transaction, so it
fails the whole file and never leaves partial rows behind.
"""

from __future__ import annotations

import csv
import json
import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cached_property
from itertools import chain
from typing import Any, ClassVar, TextIO
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from workers.pipeline.clock import in_utc
from workers.pipeline.decode import Decoded, Opener, decode, decode_error
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.timings_json import JsonScanner, Node
from workers.pipeline.records import Measurement, Parsed
from workers.pipeline.registry import ParseContext, register

PARSER = "timings"
REQUIRED = ("name", "started_at", "duration_ms")
# Measure-Command output is read whole; beyond this it is refused with a message instead of
# exhausting the worker's memory (a JSON document is read through a window, a CSV by lines).
MAX_TEXT_CHARS = 256 * 1024 * 1024
MAX_REPETITION = 2**31 - 1  # the measurement table's integer column
UNITS_TO_MS: Mapping[str, float] = {
    "ms": 1.0,
    "us": 0.001,
    "µs": 0.001,
    "s": 1000.0,
    "sec": 1000.0,
    "min": 60_000.0,
    "h": 3_600_000.0,
}
TIMESPAN_KEYS = frozenset(
    (
        "days",
        "hours",
        "minutes",
        "seconds",
        "milliseconds",
        "ticks",
        "totaldays",
        "totalhours",
        "totalminutes",
        "totalseconds",
        "totalmilliseconds",
    )
)
_WS = re.compile(r"[ \t\r\n]*")
# Matched line by line, and the value stripped rather than matched by "(.*?)\s*$": a regex
# that can split a run of spaces two ways (or whose \s runs across lines) is quadratic in it.
_KEY_VALUE = re.compile(r"^\s*([A-Za-z]+)\s*:(.*)$")
_MC_DAYS = re.compile(r"\s*Days\s*:\s*\d+\s*")
_MC_TOTAL = re.compile(r"\s*TotalMilliseconds\s*:")
_MC_TABLE_HEADER = re.compile(r"\s*TotalMilliseconds\s*")
_NUMBER = re.compile(r"^[+-]?(\d+([.,]\d*)?|[.,]\d+)([eE][+-]?\d+)?$")
_RULE = re.compile(r"^\s*-{3,}\s*$")
_LINE_BREAK = re.compile("\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


@register
class TimingsParser:
    """Timing rows from JSON, JSON Lines, CSV or Measure-Command output."""

    name: ClassVar[str] = PARSER
    binary: ClassVar[bool] = False

    def detect(self, head_bytes: bytes, head_text: str) -> int:
        text = head_text.lstrip("\ufeff \t\r\n")
        if text.startswith(("[", "{")):
            row = _first_json_row(text)
            return 90 if row is not None and all(key in row for key in REQUIRED) else 0
        if _looks_like_measure_command(text):
            return 80
        header = _csv_header(text)
        return 90 if header is not None else 0

    def parse(self, source: Decoded | Opener, context: ParseContext) -> Parsed:
        decoded = source if isinstance(source, Decoded) else decode(source)
        measurements = _measurements(decoded, context)
        first = next(measurements, None)  # the layout and the first row are checked here
        if first is None:
            raise ParseError("the file holds no timing rows", line=1, parser=PARSER)
        return Parsed(parser=PARSER, tool="timing", measurements=chain([first], measurements))


def _measurements(decoded: Decoded, context: ParseContext) -> Iterator[Measurement]:
    """The file's timings, one at a time: loading pulls them in batches, so no layout is ever
    held as a list of rows. A CSV is read line by line and a JSON document through a window
    (``timings_json``); Measure-Command output, a few hundred bytes a run, is held as text,
    bounded by ``MAX_TEXT_CHARS``."""
    head = decoded.head_text.lstrip("\ufeff \t\r\n")
    clock = _Clock(context.timezone)
    try:
        if head.startswith(("[", "{")):
            yield from _parse_json(decoded, clock)
            return
        with decoded.open_text() as stream:
            if _looks_like_measure_command(head):
                yield from _parse_measure_command(_read_all(stream), context, clock)
            else:
                yield from _parse_csv(stream, clock)
    except UnicodeDecodeError as exc:
        raise decode_error(exc, decoded.encoding, PARSER) from None


def _read_all(stream: TextIO) -> str:
    text = stream.read(MAX_TEXT_CHARS + 1)
    if len(text) > MAX_TEXT_CHARS:
        raise ParseError(
            f"timings file is larger than {MAX_TEXT_CHARS // (1024 * 1024)} MiB of text; split it into several uploads",
            parser=PARSER,
        )
    return text


def _skip_ws(text: str, index: int) -> int:
    match = _WS.match(text, index)
    return match.end() if match else index


def _error(message: str, line: int | None = None, column: int | None = None) -> ParseError:
    return ParseError(message, line=line, column=column, parser=PARSER)


def _show(value: Any) -> str:
    """A short rendering of a bad value for an error message."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# --------------------------------------------------------------------------
# Rows: the checks every layout shares


@dataclass(frozen=True)
class _Field:
    """One value of a row and where it sits. ``text`` is True for CSV cells."""

    value: Any
    line: int
    column: int | None
    text: bool = False


class _Clock:
    """Turns ISO 8601 text into UTC, reading naive times in the upload's zone."""

    def __init__(self, zone_name: str | None) -> None:
        self.zone_name = zone_name

    @cached_property
    def zone(self) -> ZoneInfo | None:
        if not self.zone_name:
            return None
        try:
            return ZoneInfo(self.zone_name)
        except (ZoneInfoNotFoundError, ValueError):
            raise _error(
                f"unknown timezone {self.zone_name!r}; expected an IANA name such as 'Europe/London'"
            ) from None

    def utc(self, text: str, where: str, line: int | None, column: int | None) -> datetime:
        try:
            moment = datetime.fromisoformat(text.strip())
        except ValueError:
            raise _error(
                f"{where} must be an ISO 8601 timestamp such as 2015-07-01T10:15:00+10:00, got {_show(text)}",
                line,
                column,
            ) from None
        if moment.tzinfo is None:
            zone = self.zone
            if zone is None:
                raise _error(
                    f"{where} {_show(text)} has no UTC offset; add one (e.g. Z or +10:00) "
                    "or upload the file with a timezone",
                    line,
                    column,
                )
            moment = moment.replace(tzinfo=zone)
        return in_utc(moment, f"{where} {_show(text)}", parser=PARSER, line=line, column=column)


@dataclass
class _Defaults:
    scenario: dict[str, str] | None = None
    host: str | None = None


@dataclass
class _RowReader:
    """Builds one ``Measurement`` from named fields, or says what is wrong."""

    fields: Mapping[str, _Field]
    line: int
    column: int | None
    clock: _Clock
    defaults: _Defaults = field(default_factory=_Defaults)
    extra_dims: dict[str, _Field] = field(default_factory=dict)

    def _present(self, key: str) -> _Field | None:
        found = self.fields.get(key)
        if found is None or found.value is None or (found.text and not str(found.value).strip()):
            return None
        return found

    def _required(self, key: str, expected: str) -> _Field:
        found = self._present(key)
        if found is None:
            cell = self.fields.get(key)
            if cell is not None:
                state = "empty" if cell.text else "null"
                raise _error(f'"{key}" is {state}; expected {expected}', cell.line, cell.column)
            raise _error(f'timing is missing "{key}" ({expected})', self.line, self.column)
        return found

    def measurement(self) -> Measurement:
        name = self._name()
        started = self._required("started_at", "an ISO 8601 timestamp")
        if not isinstance(started.value, str):
            raise _error(
                f'"started_at" must be an ISO 8601 timestamp string, got {_show(started.value)}',
                started.line,
                started.column,
            )
        time = self.clock.utc(started.value, '"started_at"', started.line, started.column)
        return Measurement(
            time=time,
            metric=name,
            value=self._duration(),
            unit="ms",
            repetition=self._repetition(),
            subject=self._optional_text("subject") or "",
            scenario=self._scenario(),
            host=self._optional_text("host") or self.defaults.host,
            line=self.line,
        )

    def _name(self) -> str:
        found = self._required("name", 'what was timed, e.g. "logon" or "Excel launch"')
        if not isinstance(found.value, str) or not found.value.strip():
            raise _error(
                f'"name" must be a non-empty string, got {_show(found.value)}', found.line, found.column
            )
        return found.value.strip()

    def _duration(self) -> float:
        found = self._required("duration_ms", "the duration in milliseconds")
        value = _number(found.value)
        if value is None or not math.isfinite(value) or value < 0:
            raise _error(
                f'"duration_ms" must be a non-negative finite number, got {_show(found.value)}',
                found.line,
                found.column,
            )
        unit = self._present("unit")
        if unit is None:
            return value
        factor = UNITS_TO_MS.get(str(unit.value).strip().lower()) if isinstance(unit.value, str) else None
        if factor is None:
            raise _error(
                f'"unit" must be one of {", ".join(UNITS_TO_MS)}, got {_show(unit.value)}',
                unit.line,
                unit.column,
            )
        return value * factor

    def _repetition(self) -> int:
        found = self._present("repetition")
        if found is None:
            return 1
        value = found.value
        number: int | None = None
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif isinstance(value, float) and value.is_integer():
            number = int(value)
        elif isinstance(value, str) and value.strip().isdecimal():
            digits = value.strip()  # int() of thousands of digits is refused, and slow
            number = int(digits) if len(digits) <= 10 else MAX_REPETITION + 1
        if number is None or number < 1:
            raise _error(
                f'"repetition" must be a positive whole number, got {_show(value)}', found.line, found.column
            )
        if number > MAX_REPETITION:
            raise _error(
                f'"repetition" must be at most {MAX_REPETITION:,}, got {_show(value)}',
                found.line,
                found.column,
            )
        return number

    def _optional_text(self, key: str) -> str | None:
        found = self._present(key)
        if found is None:
            return None
        if not isinstance(found.value, str):
            raise _error(f'"{key}" must be a string, got {_show(found.value)}', found.line, found.column)
        return found.value.strip() or None

    def _scenario(self) -> dict[str, str] | None:
        found = self._present("scenario")
        dims: dict[str, str] | None = None
        if found is not None:
            dims = _scenario_dims(found)
        elif not self.extra_dims:
            return dict(self.defaults.scenario) if self.defaults.scenario else None
        dims = dict(dims or {})
        for key, cell in self.extra_dims.items():
            value = str(cell.value).strip()
            if not value:
                continue
            if key in dims and dims[key] != value:
                raise _error(
                    f'"scenario.{key}" is {_show(value)} but "scenario" sets {key}={_show(dims[key])}',
                    cell.line,
                    cell.column,
                )
            dims[key] = value
        return dims or None


def _number(value: Any, comma_decimal: bool = False) -> float | None:
    """A JSON number or decimal text; ``comma_decimal`` for culture-formatted output."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            return float(value)
        except OverflowError:  # an integer beyond any float
            return math.inf
    if not isinstance(value, str):
        return None
    text = value.strip()
    if comma_decimal and "," in text and "." not in text:
        text = text.replace(",", ".")
    if not _NUMBER.match(text) or "," in text:
        return None
    return float(text)


def _scenario_dims(found: _Field) -> dict[str, str]:
    value = found.value
    expected = "an object of dimension names to values"
    if isinstance(value, str) and found.text:
        text = value.strip()
        if text.startswith("{"):
            try:
                value = json.loads(text)
            except json.JSONDecodeError as exc:
                raise _error(
                    f'"scenario" is not valid JSON ({exc.msg} at character {exc.pos + 1})',
                    found.line,
                    found.column,
                ) from None
            except ValueError:  # an integer too long for int()
                raise _error(
                    '"scenario" holds a number too long to read; expected an object of short values',
                    found.line,
                    found.column,
                ) from None
        else:
            dims: dict[str, str] = {}
            for part in text.split(";"):
                if not part.strip():
                    continue
                key, sep, dim = part.partition("=")
                if not sep or not key.strip():
                    raise _error(
                        f'"scenario" must be a JSON object or k=v;k=v pairs, got {_show(value)}',
                        found.line,
                        found.column,
                    )
                dims[key.strip()] = dim.strip()
            return dims
    if not isinstance(value, dict):
        raise _error(f'"scenario" must be {expected}, got {_show(value)}', found.line, found.column)
    dims = {}
    for key, dim in value.items():
        if isinstance(dim, bool):
            dims[key] = "true" if dim else "false"
        elif isinstance(dim, str | int | float):
            dims[key] = str(dim)
        else:
            raise _error(
                f'"scenario" value of {key!r} must be a string or number, got {_show(dim)}',
                found.line,
                found.column,
            )
    return dims


# --------------------------------------------------------------------------
# JSON, with the position of every value


@dataclass
class _Layout:
    """Where a JSON timings document keeps its rows (found by a first pass that keeps none)."""

    rows_at: int | None = None  # the "[" of the row list
    members: dict[str, Node] | None = None  # the other members of a {"timings": [...]} object
    lines_at: int | None = None  # the first of one or more row objects (JSON Lines)
    first_row: Node | None = None  # that first object when it holds a "timings" list
    first_end: int = 0


def _json_layout(scanner: JsonScanner, index: int) -> _Layout:
    """Check a document that does not open with a list, row by row, keeping no row: whether it
    is one object with a ``"timings"`` list or a sequence of row objects is known only at its end."""
    if scanner.char(index) != "{":
        first, end = scanner.node(index)
        line, column = scanner.where(first.offset)
        rest = scanner.skip(end, release=True)
        if not scanner.at_end(rest):
            raise scanner.fail("Extra data", rest)
        raise _error(
            "invalid JSON: expected a list of timings, an object with a "
            '"timings" list, or one timing object per line',
            line,
            column,
        )
    members, timings, end = scanner.wrapper(index)
    rest = scanner.skip(end, release=True)
    if scanner.at_end(rest) and (timings is not None or "timings" in members):
        if timings is None:
            line, column = _position(members["timings"])
            raise _error('invalid JSON: "timings" must be a list of timing objects', line, column)
        return _Layout(rows_at=timings, members=members)
    while not scanner.at_end(rest):
        node, after = scanner.node(rest)
        if not isinstance(node.value, dict):
            raise scanner.fail("expected one timing object per line (JSON Lines)", node.offset)
        rest = scanner.skip(after, release=True)
    layout = _Layout(lines_at=index, first_end=end)
    if timings is not None:  # a {"timings": [...]} object among others is itself read as a row
        value = {key: child.value for key, child in members.items()}
        layout.first_row = Node({**value, "timings": []}, index)
    return layout


def _json_rows(scanner: JsonScanner, layout: _Layout) -> Iterator[Node]:
    """The rows ``layout`` found, decoded one at a time (by a second scanner on a fresh stream)."""
    if layout.rows_at is not None:
        scanner.window.release(layout.rows_at)
        yield from scanner.elements(layout.rows_at)
        return
    if layout.lines_at is None:
        return
    index = layout.lines_at
    if layout.first_row is not None:
        yield layout.first_row
        index = scanner.skip(layout.first_end, release=True)
    while not scanner.at_end(index):
        node, end = scanner.node(index)
        yield node
        index = scanner.skip(end, release=True)


def _parse_json(decoded: Decoded, clock: _Clock) -> Iterator[Measurement]:
    """A list of rows is read once; any other document twice, its layout found by the first pass."""
    with decoded.open_text() as stream:
        scanner = JsonScanner(stream, PARSER)
        start = scanner.skip(0, release=True)
        if scanner.char(start) == "[":
            yield from _json_list(scanner, start, clock)
            return
        layout = _json_layout(scanner, start)
    defaults = _json_defaults(layout.members) if layout.members is not None else _Defaults()
    with decoded.open_text() as stream:
        scanner = JsonScanner(stream, PARSER)
        for row in _json_rows(scanner, layout):
            yield _json_row(scanner, row, clock, defaults)


def _json_list(scanner: JsonScanner, start: int, clock: _Clock) -> Iterator[Measurement]:
    """The rows of the list at ``start``, each checked as it is pulled. A bad row is reported
    only once the rest of the document has been read: a syntax error anywhere in it comes first,
    as it did when the whole document was checked before any row."""
    end: list[int] = []
    rows = scanner.elements(start, end)
    for row in rows:
        try:
            measurement = _json_row(scanner, row, clock, _Defaults())
        except ParseError:
            _json_list_end(scanner, rows, end)
            raise
        yield measurement
    _json_list_end(scanner, rows, end)


def _json_list_end(scanner: JsonScanner, rows: Iterator[Node], end: list[int]) -> None:
    """Read the list's remaining rows (checking their syntax only) and what follows the list."""
    for _ in rows:
        pass
    rest = scanner.skip(end[0], release=True)
    if not scanner.at_end(rest):
        raise scanner.fail("Extra data", rest)


def _json_defaults(members: dict[str, Node]) -> _Defaults:
    defaults = _Defaults()
    if "scenario" in members and members["scenario"].value is not None:
        node = members["scenario"]
        defaults.scenario = _scenario_dims(_Field(node.value, *_position(node))) or None
    if "host" in members and members["host"].value is not None:
        node = members["host"]
        if not isinstance(node.value, str):
            raise _error(f'"host" must be a string, got {_show(node.value)}', *_position(node))
        defaults.host = node.value.strip() or None
    return defaults


def _position(node: Node) -> tuple[int, int]:
    assert node.position is not None, "a wrapper member is located as it is read"
    return node.position


def _json_row(scanner: JsonScanner, row: Node, clock: _Clock, defaults: _Defaults) -> Measurement:
    line, column = scanner.where(row.offset)
    if not isinstance(row.value, dict):
        raise _error(f"expected a timing object, got {_show(row.value)}", line, column)
    fields = {key: _Field(value, line, column) for key, value in row.value.items()}
    try:
        return _RowReader(fields, line, column, clock, defaults).measurement()
    except ParseError:
        # A bad row: walk it again to point at the offending value.
        located, _ = scanner.node(row.offset, located=1)
        assert located.members is not None
        fields = {
            key: _Field(child.value, *scanner.where(child.offset)) for key, child in located.members.items()
        }
        return _RowReader(fields, line, column, clock, defaults).measurement()


def _first_json_row(text: str) -> dict[str, Any] | None:
    """The first row object of a (possibly truncated) JSON head, if found."""
    decoder = json.JSONDecoder()

    def object_at(index: int) -> dict[str, Any] | None:
        index = _skip_ws(text, index)
        if text[index : index + 1] != "{":
            return None
        try:
            value, _ = decoder.raw_decode(text, index)
        except (ValueError, RecursionError):  # not JSON, or a number int() refuses
            return None
        return value if isinstance(value, dict) else None

    if text.startswith("["):
        return object_at(1)
    document = object_at(0)
    if document is not None:
        timings = document.get("timings")
        if isinstance(timings, list):
            return timings[0] if timings and isinstance(timings[0], dict) else None
        return document
    wrapper = re.search(r'"timings"\s*:\s*\[', text)
    return object_at(wrapper.end()) if wrapper else None


# --------------------------------------------------------------------------
# CSV


def _csv_header(text: str) -> tuple[str, list[str]] | None:
    """``(delimiter, lower-cased names)`` if the first line is a timings header."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    for delimiter in (",", ";", "\t"):
        names = [name.strip().lower() for name in _header_cells(first, delimiter)]
        if all(required in names for required in REQUIRED):
            return delimiter, names
    return None


def _header_cells(line: str, delimiter: str) -> list[str]:
    """The cells of a header line; none when the csv module refuses it (a field over its size limit)."""
    try:
        return next(csv.reader([line], delimiter=delimiter), [])
    except csv.Error:
        return []


def _parse_csv(stream: TextIO, clock: _Clock) -> Iterator[Measurement]:
    lines = enumerate(stream, start=1)
    header_line, header_text = next(((n, text) for n, text in lines if text.strip()), (1, ""))
    found = _csv_header(header_text)
    if found is None:
        try:
            names = [name.strip() for name in next(csv.reader([header_text]), [])]
        except csv.Error as exc:
            raise _error(
                f"malformed CSV header ({exc}); expected a header with at least {','.join(REQUIRED)}",
                line=header_line,
            ) from None
        missing = [name for name in REQUIRED if name not in (n.lower() for n in names)]
        raise _error(
            "not a timings file: expected JSON, Measure-Command output, or a CSV header with at least "
            f"{','.join(REQUIRED)} (missing {', '.join(missing)})",
            line=header_line,
        )
    delimiter, _ = found
    raw_names = next(csv.reader([header_text], delimiter=delimiter))
    columns: list[tuple[str, bool]] = []  # (field key, is a scenario.<key> column)
    seen: set[tuple[str, bool]] = set()
    for number, raw in enumerate(raw_names, start=1):
        name = raw.strip()
        column = (
            (name[len("scenario.") :].strip(), True)
            if name.lower().startswith("scenario.")
            else (name.lower(), False)
        )
        if column in seen and column[0]:
            raise _error(f"column {name!r} appears twice in the header", header_line, number)
        seen.add(column)
        columns.append(column)

    # The reader counts the physical lines it consumed, so a row (even one
    # with a quoted line break) starts right after the previous row's last.
    reader = csv.reader((text for _, text in lines), delimiter=delimiter)
    while True:
        start = header_line + reader.line_num + 1
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise _error(f"malformed CSV row: {exc}", start) from None
        if not any(cell.strip() for cell in cells):
            continue
        if len(cells) > len(columns) and any(cell.strip() for cell in cells[len(columns) :]):
            raise _error(
                f"row has {len(cells)} fields but the header has {len(columns)}", start, len(columns) + 1
            )
        if len(cells) < len(columns):
            raise _error(
                f"row has {len(cells)} fields but the header has {len(columns)}", start, len(cells) + 1
            )
        fields: dict[str, _Field] = {}
        dims: dict[str, _Field] = {}
        for number, ((key, is_dim), cell) in enumerate(zip(columns, cells, strict=False), start=1):
            target = dims if is_dim else fields
            target[key] = _Field(cell, start, number, text=True)
        yield _RowReader(fields, start, None, clock, extra_dims=dims).measurement()


# --------------------------------------------------------------------------
# PowerShell Measure-Command


def _looks_like_measure_command(text: str) -> bool:
    """A ``Days : 0`` line with a ``TotalMilliseconds :`` line after it, or a ``TotalMilliseconds`` table."""
    days_seen = after_header = False
    for line in text.split("\n"):
        if days_seen and _MC_TOTAL.match(line):
            return True
        if after_header and line.strip():
            if _RULE.match(line):
                return True
            after_header = False
        if _MC_DAYS.fullmatch(line):
            days_seen = True
        elif _MC_TABLE_HEADER.fullmatch(line):
            after_header = True
    return False


@dataclass
class _Block:
    line: int
    values: dict[str, tuple[str, int]] = field(default_factory=dict)


def _parse_measure_command(text: str, context: ParseContext, clock: _Clock) -> Iterator[Measurement]:
    blocks = _timespan_blocks(text)
    first = next(blocks, None)
    if first is None:
        raise _error("no Measure-Command results found (expected 'TotalMilliseconds : <number>')", line=1)
    started_text = context.extra.get("started_at", "").strip()
    if not started_text:
        raise _error(
            "PowerShell Measure-Command output holds no start time; upload it with started_at "
            "(ISO 8601, e.g. 2015-07-01T10:15:00+10:00)",
            line=first.line,
        )
    moment = clock.utc(started_text, "started_at", None, None)
    name = context.extra.get("name", "").strip() or "command"
    for repetition, block in enumerate(chain([first], blocks), start=1):
        duration = _block_milliseconds(block)
        yield Measurement(
            time=moment, metric=name, value=duration, unit="ms", repetition=repetition, line=block.line
        )
        try:
            moment += timedelta(milliseconds=duration)
        except OverflowError:
            raise _error(
                f"Measure-Command durations add up to more than a date can hold (block {repetition})",
                block.line,
            ) from None


def _lines(text: str) -> Iterator[str]:
    """``text.splitlines()`` one line at a time, without a list of them all."""
    start = 0
    for found in _LINE_BREAK.finditer(text):
        yield text[start : found.start()]
        start = found.end()
    if start < len(text):
        yield text[start:]


class _Lines:
    """Numbered lines with a look at the next one."""

    def __init__(self, text: str) -> None:
        self._lines = enumerate(_lines(text), start=1)
        self._next: tuple[int, str] | None = None

    def __iter__(self) -> Iterator[tuple[int, str]]:
        return self

    def __next__(self) -> tuple[int, str]:
        if self._next is not None:
            line, self._next = self._next, None
            return line
        return next(self._lines)

    def peek(self) -> tuple[int, str] | None:
        if self._next is None:
            self._next = next(self._lines, None)
        return self._next


def _timespan_blocks(text: str) -> Iterator[_Block]:
    """Each ``Days : ...`` list, or each row of a ``TotalMilliseconds`` table, in order.

    A list is yielded once its last line has been read (the next line starts another
    block or is not part of one).
    """
    current: _Block | None = None
    lines = _Lines(text)
    for number, line in lines:
        rule = lines.peek()
        if line.strip().lower() == "totalmilliseconds" and rule is not None and _RULE.match(rule[1]):
            if current is not None:
                yield current
            current = None
            next(lines)
            while (row := lines.peek()) is not None and _NUMBER.match(row[1].strip()):
                next(lines)
                yield _Block(row[0], {"totalmilliseconds": (row[1].strip(), row[0])})
            continue
        match = _KEY_VALUE.match(line)
        if match is None or match.group(1).lower() not in TIMESPAN_KEYS:
            if current is not None:
                yield current
            current = None
            continue
        key = match.group(1).lower()
        if current is None or key == "days" or key in current.values:
            if current is not None:
                yield current
            current = _Block(number)
        current.values[key] = (match.group(2).strip(), number)
    if current is not None:
        yield current


def _block_milliseconds(block: _Block) -> float:
    if "totalmilliseconds" in block.values:
        text, line = block.values["totalmilliseconds"]
        value = _number(text, comma_decimal=True)
        label = "TotalMilliseconds"
    elif "ticks" in block.values:
        text, line = block.values["ticks"]
        ticks = _number(text, comma_decimal=True)
        value = None if ticks is None else ticks / 10_000
        label = "Ticks"
    else:
        raise _error("Measure-Command result has neither TotalMilliseconds nor Ticks", block.line)
    if value is None or not math.isfinite(value) or value < 0:
        raise _error(f"{label} must be a non-negative number, got {_show(text)}", line)
    return value

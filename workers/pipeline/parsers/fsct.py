"""FSCT (Microsoft File Server Capacity Tool) results: one row per user-count step.

What FSCT is, and what we could not check
-----------------------------------------
FSCT 1.0 (2009; 1.2 in 2011) drives a file server from client machines with
a workload (``HomeFolders``) made of scenarios -- sequences of file
operations such as an Explorer upload or an application opening a file. The
controller (``fsct run controller ... /min_users 100 /max_users 1000 /step
100 /duration 600``) runs one step per user count and, per its documentation,
reports for each step the users, the throughput in scenarios per second,
overload (the share of scenarios that could not run on time -- the server
is at capacity once it is above 0), errors, and per-scenario response times.

No FSCT result file has been published that we could find, and the exact
file names and column spellings of the controller's output could not be
checked. So this parser does not claim to read "what FSCT writes" byte for
byte: it reads one layout, defined below, that carries exactly the figures
FSCT documents per step. It is the controller's summary table as a text
file; output in another shape is refused with a message naming the header
it expected, and can be brought to this shape by hand or by a short script.

The accepted layout ("FSCT step summary")
-----------------------------------------
A text file (any encoding the decode stage recognises) holding:

1. Optionally, a banner and ``Key: value`` lines before the first table
   (``Server: FILE3``, ``Workload: HomeFolders``, ``Clients: C1,C2`` ...).
   Each key becomes a run attribute in snake case (``min_users``); a banner
   line ``File Server Capacity Tool (FSCT) 1.2`` gives ``fsct_version``.
2. The **results table** (required), usually under a ``*** Results`` title:
   a header line whose first label is ``Users`` and which has
   ``Throughput`` and ``Overload`` and/or ``Overloaded``, then one row per
   step. Labels (case-insensitive; the bracketed unit is part of the label):

   ============================  ==========================================
   ``Users``                      user count of the step (integer, required)
   ``Throughput``                 scenarios/s (``[scenarios/s]`` optional)
   ``Overload`` / ``Overload [%]``  percentage, ``%`` sign optional
   ``Overloaded``                 ``yes``/``no``, ``true``/``false``, 1/0
   ``Errors``                     count of failed scenarios (optional)
   ``Errors [%]``                 percentage (optional)
   ``Duration [ms]`` / ``[s]``    length of the step (optional)
   ``Started``, ``Ended``         ISO 8601 date and time (optional)
   ============================  ==========================================

3. Optionally, the **response-time table**, usually under
   ``*** Scenario response times``: a header whose first label is ``Users``
   with ``Scenario`` and ``Average [ms]`` (or ``Avg [ms]``,
   ``Response [ms]``), then one row per step and scenario.

A table is found by its header line (the ``***`` titles are optional) and
ends at a blank line, a ``***`` line or the end of the file. Other labels
(``Count``, ``Min [ms]`` ...) and text outside the tables are ignored.
Columns are separated by a tab, ``;`` or ``,`` when the header line holds
one (in that order), otherwise by runs of spaces -- then a scenario name is
one word, and a timestamp may use a space between date and time. With
tabs or ``;`` a decimal comma is accepted. ``N/A``, ``-`` and empty cells
are missing values (not allowed for users, throughput or the overload).

The step timeline
-----------------
A step runs from ``Started`` to ``Ended`` (or ``Started`` + ``Duration``).
Without a ``Started`` column, the steps are laid back to back from the
upload's ``started_at`` using ``Duration`` -- an approximation, as FSCT
pauses between steps. Times without an offset are read in the upload's
timezone; without one (or without any way to place the steps) the file is
refused rather than stamped with invented times. Steps must not overlap.

What comes out
--------------
``Parsed.steps``: one ``Step(users, started, ended)`` per row, so the
capacity view can read server counters in each step's window. Per step,
stamped at its start with repetition 1: ``fsct.throughput_sps``
(scenarios/s), ``fsct.overload_pct`` (%), ``fsct.overloaded`` (0/1, from
the flag column or overload > 0), ``fsct.errors`` and ``fsct.errors_pct``
when given, and ``fsct.response_ms`` (ms) per scenario with the scenario
name as subject.

A file that ends inside a table row without a line break (a copy cut short
while FSCT was still running) keeps its complete rows; the cut row is left
out and the run attribute ``truncated`` says so. Any other bad row fails the
whole file with its line and column.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, ClassVar, TextIO
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from workers.pipeline.clock import in_utc
from workers.pipeline.decode import Decoded, Opener, decode, decode_error
from workers.pipeline.errors import ParseError
from workers.pipeline.records import Measurement, Parsed, Step
from workers.pipeline.registry import ParseContext, register

PARSER = "fsct"
MAX_LINE_CHARS = 64 * 1024
# Header labels (lower case, single spaces) -> field.
LABELS: dict[str, str] = {
    "users": "users",
    "throughput": "throughput",
    "throughput [scenarios/s]": "throughput",
    "overload": "overload_pct",
    "overload%": "overload_pct",
    "overload [%]": "overload_pct",
    "overloaded": "overloaded",
    "errors": "errors",
    "errors%": "errors_pct",
    "errors [%]": "errors_pct",
    "duration [ms]": "duration_ms",
    "duration [s]": "duration_s",
    "started": "started",
    "ended": "ended",
    "scenario": "scenario",
    "average [ms]": "response_ms",
    "avg [ms]": "response_ms",
    "response [ms]": "response_ms",
}
FLAGS = {"yes": 1.0, "y": 1.0, "true": 1.0, "1": 1.0, "no": 0.0, "n": 0.0, "false": 0.0, "0": 0.0}
MISSING = frozenset(("", "-", "n/a", "na", "--"))
_TIMESTAMP = r"\d{4}-\d{2}-\d{2}[ T]\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?"
_CELL = re.compile(rf"{_TIMESTAMP}|\S+")
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)$")
# Matched on one line with its leading space stripped: "^\s*" under re.MULTILINE runs across
# blank lines from every line start, quadratic in a run of them.
_BANNER = re.compile(r"(?:Microsoft\s+)?File\s+Server\s+Capacity\s+Tool\b", re.IGNORECASE)
_VERSION = re.compile(r"\bFSCT\)?\s+v?(\d+(?:\.\d+)+)", re.IGNORECASE)
# The value is stripped afterwards: "(\S.*?)\s*$" is quadratic in a run of spaces inside it.
_KEY_VALUE = re.compile(r"^\s*([A-Za-z][A-Za-z0-9 _./-]{0,39}?)\s*:\s+(\S.*)$")
MAX_USERS = 2**31 - 1  # the step table's integer column


@register
class FsctParser:
    """FSCT step summaries: throughput, overload, errors and response times per user count."""

    name: ClassVar[str] = PARSER
    binary: ClassVar[bool] = False

    def detect(self, head_bytes: bytes, head_text: str) -> int:
        if any(_is_banner(line) for line in head_text.split("\n")):
            return 90
        for line in head_text.splitlines()[:500]:
            try:
                header = _header(line, 0)
            except ParseError:  # a results header naming a column twice: still FSCT's
                return 90
            if header is not None and header.kind == "results":
                return 90
        return 0

    def parse(self, source: Decoded | Opener, context: ParseContext) -> Parsed:
        decoded = source if isinstance(source, Decoded) else decode(source)
        reader = _Reader()
        try:
            with decoded.open_text() as stream:
                for number, line, ended in _lines(stream):
                    reader.feed(number, line, ended)
        except UnicodeDecodeError as exc:
            raise decode_error(exc, decoded.encoding, PARSER) from None
        return reader.result(context)


def _error(message: str, line: int | None = None, column: int | None = None) -> ParseError:
    return ParseError(message, line=line, column=column, parser=PARSER)


def _is_banner(line: str) -> bool:
    return _BANNER.match(line.lstrip()) is not None


def _lines(stream: TextIO) -> Iterator[tuple[int, str, bool]]:
    """``(number, text without its line break, whether it had one)``."""
    number = 0
    while True:
        raw = stream.readline(MAX_LINE_CHARS + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_LINE_CHARS and not raw.endswith(("\n", "\r")):
            raise _error(f"line is longer than {MAX_LINE_CHARS} characters; not an FSCT summary", number)
        text = raw.rstrip("\r\n")
        yield number, text, text != raw


# --------------------------------------------------------------------------
# Tables


@dataclass(frozen=True)
class _Cell:
    text: str
    column: int  # 1-based character position


@dataclass(frozen=True)
class _Header:
    kind: str  # "results" or "responses"
    fields: list[str | None]  # field per column; None = ignored column
    labels: list[str]
    delimiter: str | None
    line: int


def _split(line: str, delimiter: str | None, header: bool = False) -> list[_Cell]:
    if delimiter is None:
        if header:
            return _header_labels(line)
        return [_Cell(match.group(), match.start() + 1) for match in _CELL.finditer(line)]
    cells = []
    offset = 0
    for piece in line.split(delimiter):
        stripped = piece.strip()
        lead = len(piece) - len(piece.lstrip())
        cells.append(_Cell(stripped, offset + lead + 1))
        offset += len(piece) + len(delimiter)
    return cells


def _header_labels(line: str) -> list[_Cell]:
    """Space-separated header labels, each with an optional unit in brackets: ``Duration [ms]``.

    A scan rather than a regex: ``[^\\s\\[]+(?:\\s*\\[[^\\]]*\\])?`` looks for a ``]`` to the end
    of the line after every label, quadratic when there is none.
    """
    cells = []
    last_close = line.rfind("]")
    position, end = 0, len(line)
    while position < end:
        char = line[position]
        if char.isspace() or char == "[":
            position += 1
            continue
        start = position
        while position < end and not line[position].isspace() and line[position] != "[":
            position += 1
        unit = position
        while unit < end and line[unit].isspace():
            unit += 1
        if unit < last_close and line[unit] == "[":
            position = line.index("]", unit) + 1
        cells.append(_Cell(line[start:position], start + 1))
    return cells


def _delimiter(line: str) -> str | None:
    return next((d for d in ("\t", ";", ",") if d in line), None)


def _label(text: str) -> str:
    """Lower case, one space between words and before a ``[unit]``.

    Spaces are collapsed first: ``re.sub(r"\\s*\\[", ...)`` on a long run of them is quadratic.
    """
    collapsed = re.sub(r"\s+", " ", text.strip().lower())
    return collapsed.replace(" [", "[").replace("[", " [")


def _header(line: str, number: int) -> _Header | None:
    """The table a header line starts, if it is one."""
    if not line.lstrip().lower().startswith("users"):
        return None
    delimiter = _delimiter(line)
    cells = _split(line, delimiter, header=True)
    labels = [_label(cell.text) for cell in cells]
    fields = [LABELS.get(label) for label in labels]
    if not fields or fields[0] != "users":
        return None
    present = set(fields)
    if "throughput" in present and present & {"overload_pct", "overloaded"}:
        kind = "results"
    elif {"scenario", "response_ms"} <= present:
        kind = "responses"
    else:
        return None
    for index, name in enumerate(fields):
        if name is not None and fields.index(name) != index:
            raise _error(
                f"column {cells[index].text!r} appears twice in the header", number, cells[index].column
            )
    return _Header(kind, fields, [cell.text for cell in cells], delimiter, number)


@dataclass
class _Row:
    line: int
    values: dict[str, _Cell]
    delimiter: str | None


@dataclass
class _Reader:
    """Collects the preamble and the rows of both tables, line by line."""

    attributes: dict[str, Any] = field(default_factory=dict)
    results: list[_Row] = field(default_factory=list)
    responses: list[_Row] = field(default_factory=list)
    results_header: _Header | None = None
    table: _Header | None = None
    in_preamble: bool = True
    truncated: str | None = None

    def feed(self, number: int, line: str, ended: bool) -> None:
        stripped = line.strip()
        if not stripped or stripped.startswith("***"):
            self.table = None
            if stripped:
                self.in_preamble = False
            return
        header = _header(line, number)
        if header is not None:
            self.in_preamble = False
            if header.kind == "results":
                if self.results_header is not None:
                    raise _error(
                        f"a second results table starts here (the first is on line {self.results_header.line}); "
                        "upload one FSCT run per file",
                        number,
                    )
                self.results_header = header
            self.table = header
            return
        if self.table is None:
            if self.in_preamble:
                self._preamble(line)
            return
        try:
            row = self._row(self.table, number, line)
        except ParseError:
            if ended:
                raise
            # The last line of the file, cut without a line break: a truncated copy.
            self.truncated = f"the file ends inside line {number}; that row was left out"
            return
        (self.results if self.table.kind == "results" else self.responses).append(row)

    def _preamble(self, line: str) -> None:
        if _is_banner(line):
            version = _VERSION.search(line)
            if version:
                self.attributes["fsct_version"] = version.group(1)
            return
        match = _KEY_VALUE.match(line)
        if match:
            key = re.sub(r"[^a-z0-9]+", "_", match.group(1).lower()).strip("_")
            if key:
                self.attributes[key] = match.group(2).rstrip()

    def _row(self, header: _Header, number: int, line: str) -> _Row:
        cells = _split(line, header.delimiter)
        if len(cells) < len(header.fields):
            missing = header.labels[len(cells)]
            raise _error(
                f"row has {len(cells)} fields but the header on line {header.line} has "
                f"{len(header.fields)} (no {missing!r})",
                number,
                len(line) + 1,
            )
        if len(cells) > len(header.fields):
            extra = cells[len(header.fields)]
            hint = (
                "; a scenario name with spaces needs tab-separated columns"
                if header.kind == "responses"
                else ""
            )
            raise _error(
                f"row has {len(cells)} fields but the header on line {header.line} has {len(header.fields)}{hint}",
                number,
                extra.column,
            )
        values = {name: cell for name, cell in zip(header.fields, cells, strict=True) if name is not None}
        row = _Row(number, values, header.delimiter)
        # Check every value now, so a bad row is found where it is.
        for name in values:
            _Value(row, name).check()
        return row

    # ----------------------------------------------------------------------
    # The result

    def result(self, context: ParseContext) -> Parsed:
        header = self.results_header
        if header is None:
            raise _error(
                "no FSCT results table found: expected a header line starting with 'Users' "
                "and holding 'Throughput' and 'Overload' (see the accepted layout in the README)",
                line=1,
            )
        if not self.results:
            raise _error("the FSCT results table has no rows", header.line)
        clock = _Clock(context.timezone)
        steps = self._steps(header, clock, context)
        by_users: dict[int, Step] = {}
        measurements: list[Measurement] = []
        for row, step in zip(self.results, steps, strict=True):
            by_users[step.users] = step
            measurements.extend(_step_measurements(row, step))
        seen: set[tuple[int, str]] = set()
        for row in self.responses:
            response = _response(row, by_users, seen)
            if response is not None:
                measurements.append(response)
        attributes = dict(self.attributes)
        if self.truncated:
            attributes["truncated"] = self.truncated
        return Parsed(
            parser=PARSER, tool="fsct", measurements=measurements, steps=steps, run_attributes=attributes
        )

    def _steps(self, header: _Header, clock: _Clock, context: ParseContext) -> list[Step]:
        fields = set(header.fields)
        has_duration = bool(fields & {"duration_ms", "duration_s"})
        if "started" not in fields and not has_duration:
            raise _error(
                "the FSCT results give no step times: add Started and Ended (or Duration [ms]) columns",
                header.line,
            )
        cursor: datetime | None = None
        if "started" not in fields:
            started_at = context.extra.get("started_at", "").strip()
            if not started_at:
                raise _error(
                    "the FSCT results have no Started column; upload the file with started_at "
                    "(ISO 8601) so the steps can be laid out from their durations",
                    header.line,
                )
            cursor = clock.utc(started_at, "started_at", None, None)
        steps: list[Step] = []
        users_seen: dict[int, int] = {}
        for row in self.results:
            users = int(_Value(row, "users").number())
            if users in users_seen:
                raise _error(
                    f"users {users} appears twice (first on line {users_seen[users]})",
                    row.line,
                    row.values["users"].column,
                )
            users_seen[users] = row.line
            start = _Value(row, "started").time(clock) if "started" in fields else cursor
            if start is None:
                raise _error("Started is missing", row.line, row.values["started"].column)
            end = _Value(row, "ended").time(clock) if "ended" in fields else None
            if end is None:
                duration = _duration(row)
                if duration is None:
                    where = row.values.get("ended")
                    raise _error(
                        "the step has neither Ended nor a Duration", row.line, where.column if where else None
                    )
                try:
                    end = start + duration
                except OverflowError:
                    raise _error("the step ends after the year 9999", row.line) from None
            if end <= start:
                raise _error("the step ends before it starts", row.line)
            if steps and start < steps[-1].ended_at:
                raise _error(
                    f"the step starts before the previous one ({steps[-1].users} users) ended", row.line
                )
            steps.append(Step(users, start, end))
            cursor = end
        return steps


def _response(row: _Row, by_users: dict[int, Step], seen: set[tuple[int, str]]) -> Measurement | None:
    users_cell = row.values["users"]
    users = int(_Value(row, "users").number())
    step = by_users.get(users)
    if step is None:
        raise _error(f"users {users} has no step in the results table", row.line, users_cell.column)
    scenario_cell = row.values["scenario"]
    scenario = scenario_cell.text
    if scenario.lower() in MISSING:
        raise _error("the scenario name is empty", row.line, scenario_cell.column)
    if (users, scenario) in seen:
        raise _error(f"scenario {scenario!r} appears twice for {users} users", row.line, scenario_cell.column)
    seen.add((users, scenario))
    value = _Value(row, "response_ms").optional_number()
    if value is None:
        return None
    return Measurement(
        time=step.started_at,
        metric="fsct.response_ms",
        value=value,
        unit="ms",
        subject=scenario,
        line=row.line,
    )


def _duration(row: _Row) -> timedelta | None:
    for name, factor in (("duration_ms", 0.001), ("duration_s", 1.0)):
        if name in row.values:
            value = _Value(row, name).optional_number()
            if value is not None:
                try:
                    return timedelta(seconds=value * factor)
                except OverflowError:  # beyond timedelta's billion days, or infinite
                    raise _Value(row, name).fail("a duration of a plausible length") from None
    return None


def _step_measurements(row: _Row, step: Step) -> list[Measurement]:
    out: list[Measurement] = []

    def add(metric: str, value: float, unit: str) -> None:
        out.append(Measurement(time=step.started_at, metric=metric, value=value, unit=unit, line=row.line))

    add("fsct.throughput_sps", _Value(row, "throughput").number(), "scenarios/s")
    overload = _Value(row, "overload_pct").number() if "overload_pct" in row.values else None
    flag = _Value(row, "overloaded").flag() if "overloaded" in row.values else None
    if overload is not None:
        add("fsct.overload_pct", overload, "%")
    add("fsct.overloaded", flag if flag is not None else (1.0 if overload else 0.0), "")
    for name, metric, unit in (("errors", "fsct.errors", ""), ("errors_pct", "fsct.errors_pct", "%")):
        if name in row.values:
            value = _Value(row, name).optional_number()
            if value is not None:
                add(metric, value, unit)
    return out


# --------------------------------------------------------------------------
# Values


@dataclass(frozen=True)
class _Value:
    row: _Row
    name: str

    @property
    def cell(self) -> _Cell:
        return self.row.values[self.name]

    def fail(self, expected: str) -> ParseError:
        shown = self.cell.text if len(self.cell.text) <= 40 else self.cell.text[:37] + "..."
        return _error(
            f"{_DESCRIPTIONS[self.name]} must be {expected}, got {shown!r}", self.row.line, self.cell.column
        )

    def check(self) -> None:
        if self.name in ("users", "throughput", "overload_pct"):
            self.number()
        elif self.name in ("errors", "errors_pct", "duration_ms", "duration_s", "response_ms"):
            self.optional_number()
        elif self.name == "overloaded":
            self.flag()
        elif self.name in ("started", "ended"):
            self.time(None)

    def _missing(self) -> bool:
        return self.cell.text.strip().lower() in MISSING

    def optional_number(self) -> float | None:
        if self._missing():
            return None
        return self.number()

    def number(self) -> float:
        text = self.cell.text.strip()
        percent = self.name in ("overload_pct", "errors_pct")
        if percent and text.endswith("%"):
            text = text[:-1].rstrip()
        if self.row.delimiter not in (",", None):
            text = text.replace(",", ".")
        if self.name == "users":
            # isdecimal, not isdigit: int() refuses superscripts ("²"), and thousands of digits.
            if not text.isdecimal():
                raise self.fail("a positive whole number")
            users = int(text) if len(text) <= 10 else MAX_USERS + 1
            if users <= 0:
                raise self.fail("a positive whole number")
            if users > MAX_USERS:
                raise self.fail(f"at most {MAX_USERS:,}")
            return float(users)
        if not _NUMBER.match(text):
            raise self.fail("a number" + (" (a percentage)" if percent else ""))
        value = float(text)
        if value < 0:
            raise self.fail("zero or more")
        if percent and value > 100:
            raise self.fail("a percentage from 0 to 100")
        if self.name in ("errors",) and not value.is_integer():
            raise self.fail("a whole number")
        return value

    def flag(self) -> float:
        found = FLAGS.get(self.cell.text.strip().lower())
        if found is None:
            raise self.fail("yes or no")
        return found

    def time(self, clock: _Clock | None) -> datetime | None:
        if self._missing():
            return None
        text = self.cell.text.strip().replace(",", ".")
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            raise self.fail("an ISO 8601 date and time such as 2015-07-01T10:02:00+10:00") from None
        if clock is None:
            return moment
        return clock.localise(moment, self.row.line, self.cell.column)


_DESCRIPTIONS = {
    "users": "Users",
    "throughput": "Throughput",
    "overload_pct": "Overload",
    "overloaded": "Overloaded",
    "errors": "Errors",
    "errors_pct": "Errors [%]",
    "duration_ms": "Duration [ms]",
    "duration_s": "Duration [s]",
    "started": "Started",
    "ended": "Ended",
    "response_ms": "the response time",
}


class _Clock:
    """Reads naive times in the upload's zone; refuses them when there is none."""

    def __init__(self, zone_name: str | None) -> None:
        self.zone_name = zone_name
        self._zone: ZoneInfo | None = None

    def zone(self, line: int | None, column: int | None) -> ZoneInfo:
        if self._zone is None:
            if not self.zone_name:
                raise _error(
                    "FSCT times have no UTC offset; add one (e.g. +10:00) or upload the file with a timezone",
                    line,
                    column,
                )
            try:
                self._zone = ZoneInfo(self.zone_name)
            except (ZoneInfoNotFoundError, ValueError):
                raise _error(
                    f"unknown timezone {self.zone_name!r}; expected an IANA name such as 'Europe/London'"
                ) from None
        return self._zone

    def localise(self, moment: datetime, line: int | None, column: int | None) -> datetime:
        aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=self.zone(line, column))
        return in_utc(aware, f"the time {moment.isoformat()}", parser=PARSER, line=line, column=column)

    def utc(self, text: str, where: str, line: int | None, column: int | None) -> datetime:
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            raise _error(
                f"{where} must be an ISO 8601 timestamp such as 2015-07-01T10:00:00+10:00, got {text!r}",
                line,
                column,
            ) from None
        return self.localise(moment, line, column)

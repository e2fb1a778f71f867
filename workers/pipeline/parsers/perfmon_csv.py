"""Perfmon counter logs saved as CSV (``relog -f csv``, ``typeperf``, Performance Monitor).

The format
==========

One header record, then one record per sample, every cell quoted::

    "(PDH-CSV 4.0) (China Standard Time)(-480)","\\\\HOST\\Processor(_Total)\\% Processor Time",...
    "11/14/2025 13:46:00.750"," ",...
    "11/14/2025 13:46:01.750","6.9494827586206889356e-005",...

* The first header cell names the format, the machine's time-zone name and
  its *bias*: minutes west of UTC (so ``UTC = local + bias``; China is
  ``-480``). Timestamps are local wall-clock time ``MM/DD/YYYY HH:MM:SS.mmm``.
  Some tools truncate the cell (``(PDH-CSV 4.0) (RTZ 2 (``); then the upload
  must name the zone (``ParseContext.timezone``, an IANA name) and each
  timestamp is converted with that zone's rules, DST included. With a bias
  in the header we trust the header and apply it to every row, as PDH does.
* The other header cells are counter paths
  ``\\\\HOST\\Object(Instance)\\Counter``; the instance is optional, may hold
  parentheses (``PhysicalDisk(0 C:)``), backslashes (SMB share names) and a
  ``#N`` suffix that tells same-named processes apart (kept as written).
  Localised object and counter names are mapped to English with
  :mod:`perfmon_names`; ``source_path`` keeps the column as written. Cells
  that are not counter paths (a Data Collector Set writes its description as
  a last column) are skipped, values included.
* A value is a decimal the C runtime printed: ``12.5``, ``6.9e-005``, a
  20-digit integer. ``" "`` (perfmon's "no sample", typical of the first
  row) and empty cells are missing values.

Choices
=======

* The header is read when ``parse`` is called so a file that is not a
  perfmon CSV, lacks a time zone or has too many columns fails at once; the
  rows are a generator over a fresh text stream, so a 500 MB log is never
  held in memory.
* Values stay the text the file held, once ``float()`` accepted it, the text
  is ASCII without ``_`` (``float()`` takes ``1_000``, PostgreSQL does not)
  and the number is finite; the loader's ``float()`` then gives exactly the
  double PostgreSQL would read from it.
* Anything else is a ``ParseError`` naming the 1-based physical line, the
  1-based cell index and what was expected; nothing is skipped silently
  except blank lines, non-counter columns and duplicate columns.
* Speed: the per-row work is the csv module plus one ``float()`` per cell
  done through ``map``/``sum`` in C; the checks that need more run per row on
  the joined text, and only a row that fails them is re-checked cell by cell
  (to accept leading/trailing blanks and to name the bad cell).
"""

from __future__ import annotations

import csv
import operator
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from typing import TYPE_CHECKING, ClassVar, TextIO, cast
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from workers.pipeline.decode import Decoded, Opener, decode, decode_error
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.perfmon_names import canonical_counter, canonical_object
from workers.pipeline.records import CounterColumn, CounterRow, CounterTable, Parsed
from workers.pipeline.registry import ParseContext, register

if TYPE_CHECKING:
    from _csv import Reader

NAME = "perfmon_csv"
SIGNATURE = "(PDH-CSV 4.0)"
TIMESTAMP_EXAMPLE = "04/18/2017 10:33:57.208"

# "(PDH-CSV 4.0) (<zone name>)(<bias>)"; the zone name is free text.
_HEADER_ZONE = re.compile(r"\(PDH-CSV 4\.0\)\s*\((?P<zone>.*)\)\s*\((?P<bias>[+-]?\d{1,5})\)\s*\Z", re.ASCII)
_MAX_BIAS_MINUTES = 24 * 60 - 1

# Characters ``float()`` tolerates around a number (and PostgreSQL's COPY
# must not see in a value); a row holding any of them is re-checked per cell.
_SUSPECT = ("_", " ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f")

_TIME_FORMATS = ("%m/%d/%Y %H:%M:%S.%f", "%m/%d/%Y %H:%M:%S", "%m/%d/%Y %H:%M")


@dataclass(frozen=True)
class _Header:
    """What the row generator needs from a validated header."""

    cells: int  # cells per record, non-counter columns included
    columns: list[CounterColumn]
    positions: list[int]  # 0-based cell index of each kept column
    to_utc: Callable[[datetime], datetime]
    char_limit: int


def _error(message: str, line: int | None = None, column: int | None = None) -> ParseError:
    return ParseError(message, line=line, column=column, parser=NAME)


def _csv_error(exc: csv.Error, line: int) -> ParseError:
    if "unexpected end of data" in str(exc):
        return _error("the file ends inside a quoted cell (file truncated?)", line=line)
    return _error(f"the file is not valid CSV here ({exc})", line=line)


def _bytes_per_char(encoding: str) -> int:
    """The fewest bytes a character takes in ``encoding`` (1 for UTF-8 and code pages)."""
    name = encoding.lower().replace("_", "-")
    if name.startswith("utf-32"):
        return 4
    if name.startswith("utf-16"):
        return 2
    return 1


def _lines(stream: TextIO, char_limit: int) -> Iterator[str]:
    """The stream's physical lines, refusing any longer than ``char_limit`` characters.

    ``readline`` is bounded so one enormous line is never read into memory
    whole.
    """
    readline = stream.readline
    number = 0
    while line := readline(char_limit + 2):
        number += 1
        length = len(line)
        if length > char_limit:
            if line.endswith("\r\n"):
                length -= 2
            elif line.endswith(("\n", "\r")):
                length -= 1
            if length > char_limit:
                raise _error(
                    f"line {number} is longer than the limit of {char_limit:,} characters; "
                    "a perfmon CSV has one sample per line, so this is not one (or the limit is too low)",
                    line=number,
                )
        yield line


def _reader(stream: TextIO, char_limit: int) -> Reader:
    # The csv module's field limit is process-wide; it is only ever raised,
    # to our line limit, so a long but legal cell is bounded by the line check.
    if csv.field_size_limit() < char_limit:
        csv.field_size_limit(char_limit)
    return csv.reader(_lines(stream, char_limit), strict=True)


def split_counter_path(path: str) -> tuple[str, str, str, str] | None:
    """Split a counter path into ``(host, object, instance, counter)``, or ``None`` if malformed.

    Takes ``\\\\HOST\\Object(Instance)\\Counter`` or the host-less
    ``\\Object(Instance)\\Counter`` (host ``""``); the instance is ``""``
    when absent. Object and counter names come back in English where
    :mod:`perfmon_names` knows the localised ones, as written otherwise.
    """
    if path.startswith("\\\\"):
        host, sep, rest = path[2:].partition("\\")
        if not sep or not host:
            return None
    elif path.startswith("\\"):
        host, rest = "", path[1:]
    else:
        return None
    # Counter names never hold a backslash; instance names can (SMB shares).
    head, sep, counter = rest.rpartition("\\")
    if not sep or not head or not counter:
        return None
    open_paren = head.find("(")
    if open_paren == -1:
        object_name, instance = head, ""
    elif open_paren > 0 and head.endswith(")"):
        object_name, instance = head[:open_paren], head[open_paren + 1 : -1]
    else:
        return None
    english_object = canonical_object(object_name)
    return host, english_object, instance, canonical_counter(english_object, counter)


def _time_zone(first_cell: str, context: ParseContext) -> Callable[[datetime], datetime]:
    """A function turning the file's naive local timestamps into UTC."""
    match = _HEADER_ZONE.match(first_cell)
    if match:
        bias = int(match["bias"])
        if abs(bias) > _MAX_BIAS_MINUTES:
            raise _error(
                f"the header's time-zone bias {bias} minutes is not a valid UTC offset",
                line=1,
                column=1,
            )
        shift = timedelta(minutes=bias)  # UTC = local + bias

        def fixed(local: datetime) -> datetime:
            return (local + shift).replace(tzinfo=UTC)

        return fixed

    if not context.timezone:
        zone_name = first_cell[len(SIGNATURE) :].strip(" ()")
        seen = f" (it names {zone_name!r} but no bias)" if zone_name else ""
        raise _error(
            f"the file has no time-zone offset in its header{seen}; the upload must give "
            "`timezone` (an IANA name such as Europe/Moscow) so its local timestamps can be converted to UTC",
            line=1,
            column=1,
        )
    try:
        zone: tzinfo = ZoneInfo(context.timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise _error(
            f"unknown time zone {context.timezone!r}; expected an IANA name such as Europe/Moscow"
        ) from None

    def zoned(local: datetime) -> datetime:
        # fold=0: an ambiguous wall-clock time (the repeated hour when DST
        # ends) is read as its first occurrence.
        return local.replace(tzinfo=zone).astimezone(UTC)

    return zoned


def _local_time(text: str) -> datetime | None:
    """Parse ``MM/DD/YYYY HH:MM:SS[.fff]``; ``None`` when ``text`` is not such a timestamp."""
    if (
        len(text) == 23
        and text[2] == "/"
        and text[5] == "/"
        and text[10] == " "
        and text[13] == ":"
        and text[16] == ":"
        and text[19] == "."
    ):
        digits = text[0:2] + text[3:5] + text[6:10] + text[11:13] + text[14:16] + text[17:19] + text[20:23]
        if digits.isascii() and digits.isdigit():
            try:
                return datetime(
                    int(text[6:10]),
                    int(text[0:2]),
                    int(text[3:5]),
                    int(text[11:13]),
                    int(text[14:16]),
                    int(text[17:19]),
                    int(text[20:23]) * 1000,
                )
            except ValueError:
                return None
    if not text.isascii():
        return None
    for time_format in _TIME_FORMATS:
        try:
            return datetime.strptime(text.strip(), time_format)
        except ValueError:
            continue
    return None


def _check_cells(cells: Sequence[str], header: _Header, line: int) -> list[str | None]:
    """Validate one row's values cell by cell: the slow path, and the error messages."""
    values: list[str | None] = []
    for index, raw in enumerate(cells):
        text = raw.strip()
        if not text:
            values.append(None)
            continue
        try:
            number = float(text)
        except ValueError:
            number = None
        if number is None or "_" in text or not text.isascii():
            problem = "is not a number"
        elif number - number != 0.0:
            problem = "is not a finite number"
        else:
            values.append(text)
            continue
        column = header.positions[index] + 1
        path = header.columns[index].source_path
        shown = raw if len(raw) <= 40 else raw[:40] + "..."
        raise _error(
            f"the value {shown!r} of counter {path} {problem}; expected a decimal number "
            "such as 12.5 or 6.9e-005, or a blank for a missing sample",
            line=line,
            column=column,
        )
    return values


def _picker(positions: list[int], cells: int) -> Callable[[list[str]], Sequence[str]]:
    if positions == list(range(1, cells)):
        return operator.itemgetter(slice(1, None))
    if len(positions) == 1:
        only = positions[0]
        return lambda row: (row[only],)
    return operator.itemgetter(*positions)


@register
class PerfmonCsvParser:
    """Counter logs written by relog, typeperf and Performance Monitor as CSV."""

    name: ClassVar[str] = NAME
    binary: ClassVar[bool] = False

    def detect(self, head_bytes: bytes, head_text: str) -> int:
        text = head_text.lstrip("\ufeff")
        if text.startswith('"'):
            text = text[1:]
        return 100 if text.startswith(SIGNATURE) else 0

    def parse(self, source: Decoded | Opener, context: ParseContext) -> Parsed:
        decoded = source if isinstance(source, Decoded) else decode(source)
        header = self._read_header(decoded, context)
        return Parsed(
            parser=NAME,
            tool="perfmon",
            counters=CounterTable(columns=header.columns, rows=self._rows(decoded, header)),
        )

    def _read_header(self, source: Decoded, context: ParseContext) -> _Header:
        char_limit = max(1, context.max_line_bytes // _bytes_per_char(source.encoding))
        with source.open_text() as stream:
            reader = _reader(stream, char_limit)
            try:
                cells = next(reader, None)
            except csv.Error as exc:
                raise _csv_error(exc, 1) from None
            except UnicodeDecodeError as exc:
                raise decode_error(exc, source.encoding, NAME) from None
        if not cells:
            raise _error(
                f"the file is empty; expected a perfmon CSV header starting with {SIGNATURE!r}", line=1
            )
        first = cells[0].lstrip("\ufeff")
        if not first.startswith(SIGNATURE):
            shown = first if len(first) <= 40 else first[:40] + "..."
            raise _error(
                f"the first cell is {shown!r}; a perfmon CSV starts with {SIGNATURE!r} "
                "(save the log with relog -f csv or typeperf -f CSV)",
                line=1,
                column=1,
            )
        to_utc = _time_zone(first, context)

        columns: list[CounterColumn] = []
        positions: list[int] = []
        seen: set[tuple[str, str, str, str]] = set()
        for index, path in enumerate(cells[1:], start=1):
            if not path.startswith("\\\\"):
                continue  # not a counter: e.g. a Data Collector Set's description
            key = split_counter_path(path)
            if key is None:
                raise _error(
                    f"header cell {path!r} is not a counter path like \\\\HOST\\Object(Instance)\\Counter",
                    line=1,
                    column=index + 1,
                )
            # A path listed twice (relog merging logs that overlap) would be
            # the same series twice; the first column wins, later ones are skipped.
            if key in seen:
                continue
            seen.add(key)
            if len(columns) == context.max_columns:
                raise _error(
                    f"the header has more than {context.max_columns:,} counter columns, the most one "
                    "upload may hold; split the log (relog -c or -cf) into smaller files",
                    line=1,
                    column=index + 1,
                )
            columns.append(CounterColumn(*key, source_path=path))
            positions.append(index)
        if not columns:
            raise _error(
                "the header has no counter columns; expected cells like \\\\HOST\\Object(Instance)\\Counter",
                line=1,
            )
        return _Header(len(cells), columns, positions, to_utc, char_limit)

    def _rows(self, source: Decoded, header: _Header) -> Iterator[CounterRow]:
        """Stream the data rows; the stream is opened on the first ``next()``."""
        expected = header.cells
        pick = _picker(header.positions, expected)
        to_utc = header.to_utc
        suspect = _SUSPECT
        with source.open_text() as stream:
            reader = _reader(stream, header.char_limit)
            last = 0
            try:
                next(reader)  # the header, validated by _read_header
                last = reader.line_num
                for cells in reader:
                    line = last + 1
                    last = reader.line_num
                    if len(cells) != expected:
                        if not cells or (len(cells) == 1 and not cells[0].strip()):
                            continue  # a blank line
                        raise _error(
                            f"line {line} has {len(cells)} cells, expected {expected} (file truncated?)",
                            line=line,
                        )
                    local = _local_time(cells[0])
                    if local is None:
                        shown = cells[0] if len(cells[0]) <= 40 else cells[0][:40] + "..."
                        raise _error(
                            f"the timestamp {shown!r} is not a date and time like {TIMESTAMP_EXAMPLE} "
                            "(MM/DD/YYYY HH:MM:SS.mmm)",
                            line=line,
                            column=1,
                        )
                    picked = pick(cells)
                    present = [value for value in picked if value and value != " "]
                    values: list[str | None]
                    if len(present) == len(picked):
                        values = cast("list[str | None]", present)
                    else:
                        values = [value if value and value != " " else None for value in picked]
                    try:
                        total = sum(map(float, present))
                    except ValueError:
                        total = float("nan")
                    # A non-finite total means a bad cell (or finite values
                    # overflowing the sum); either way check cell by cell.
                    if total - total != 0.0:
                        values = _check_cells(picked, header, line)
                    else:
                        joined = "".join(present)
                        if not joined.isascii() or any(char in joined for char in suspect):
                            values = _check_cells(picked, header, line)
                    yield CounterRow(to_utc(local), values, line)
            except csv.Error as exc:
                raise _csv_error(exc, max(reader.line_num, 1)) from None
            except UnicodeDecodeError as exc:
                raise decode_error(exc, source.encoding, NAME) from None

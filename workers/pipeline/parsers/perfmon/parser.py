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
  :mod:`..common.counter_names`; ``source_path`` keeps the column as written. Cells
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
from collections.abc import Iterator
from typing import ClassVar, cast

from workers.pipeline.decode import Decoded, Opener, decode, decode_error
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.common.counter_paths import split_counter_path
from workers.pipeline.parsers.perfmon.layout import (
    NAME,
    SIGNATURE,
    SUSPECT,
    TIMESTAMP_EXAMPLE,
    Header,
    bytes_per_char,
    check_cells,
    csv_error,
    csv_reader,
    error,
    picker,
)
from workers.pipeline.parsers.perfmon.times import local_time, time_zone
from workers.pipeline.records import CounterColumn, CounterRow, CounterTable, Parsed


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

    def _read_header(self, source: Decoded, context: ParseContext) -> Header:
        char_limit = max(1, context.max_line_bytes // bytes_per_char(source.encoding))
        with source.open_text() as stream:
            reader = csv_reader(stream, char_limit)
            try:
                cells = next(reader, None)
            except csv.Error as exc:
                raise csv_error(exc, 1) from None
            except UnicodeDecodeError as exc:
                raise decode_error(exc, source.encoding, NAME) from None
        if not cells:
            raise error(
                f"the file is empty; expected a perfmon CSV header starting with {SIGNATURE!r}", line=1
            )
        first = cells[0].lstrip("\ufeff")
        if not first.startswith(SIGNATURE):
            shown = first if len(first) <= 40 else first[:40] + "..."
            raise error(
                f"the first cell is {shown!r}; a perfmon CSV starts with {SIGNATURE!r} "
                "(save the log with relog -f csv or typeperf -f CSV)",
                line=1,
                column=1,
            )
        to_utc = time_zone(first, context)

        columns: list[CounterColumn] = []
        positions: list[int] = []
        seen: set[tuple[str, str, str, str]] = set()
        for index, path in enumerate(cells[1:], start=1):
            if not path.startswith("\\\\"):
                continue  # not a counter: e.g. a Data Collector Set's description
            key = split_counter_path(path)
            if key is None:
                raise error(
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
                raise error(
                    f"the header has more than {context.max_columns:,} counter columns, the most one "
                    "upload may hold; split the log (relog -c or -cf) into smaller files",
                    line=1,
                    column=index + 1,
                )
            columns.append(CounterColumn(*key, source_path=path))
            positions.append(index)
        if not columns:
            raise error(
                "the header has no counter columns; expected cells like \\\\HOST\\Object(Instance)\\Counter",
                line=1,
            )
        return Header(len(cells), columns, positions, to_utc, char_limit)

    def _rows(self, source: Decoded, header: Header) -> Iterator[CounterRow]:
        """Stream the data rows; the stream is opened on the first ``next()``."""
        expected = header.cells
        pick = picker(header.positions, expected)
        to_utc = header.to_utc
        suspect = SUSPECT
        with source.open_text() as stream:
            reader = csv_reader(stream, header.char_limit)
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
                        raise error(
                            f"line {line} has {len(cells)} cells, expected {expected} (file truncated?)",
                            line=line,
                        )
                    local = local_time(cells[0])
                    if local is None:
                        shown = cells[0] if len(cells[0]) <= 40 else cells[0][:40] + "..."
                        raise error(
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
                        values = check_cells(picked, header, line)
                    else:
                        joined = "".join(present)
                        if not joined.isascii() or any(char in joined for char in suspect):
                            values = check_cells(picked, header, line)
                    yield CounterRow(to_utc(local), values, line)
            except csv.Error as exc:
                raise csv_error(exc, max(reader.line_num, 1)) from None
            except UnicodeDecodeError as exc:
                raise decode_error(exc, source.encoding, NAME) from None

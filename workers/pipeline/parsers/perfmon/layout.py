"""Perfmon CSV layout: lines bounded in length, the header's counter columns, and a row's cells."""

from __future__ import annotations

import csv
import operator
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, TextIO

from workers.pipeline.errors import ParseError
from workers.pipeline.records import CounterColumn

if TYPE_CHECKING:
    from _csv import Reader


NAME = "perfmon_csv"
SIGNATURE = "(PDH-CSV 4.0)"
TIMESTAMP_EXAMPLE = "04/18/2017 10:33:57.208"

# Characters ``float()`` tolerates around a number (and PostgreSQL's COPY
# must not see in a value); a row holding any of them is re-checked per cell.
SUSPECT = ("_", " ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f")


@dataclass(frozen=True)
class Header:
    """What the row generator needs from a validated header."""

    cells: int  # cells per record, non-counter columns included
    columns: list[CounterColumn]
    positions: list[int]  # 0-based cell index of each kept column
    to_utc: Callable[[datetime], datetime]
    char_limit: int


def error(message: str, line: int | None = None, column: int | None = None) -> ParseError:
    return ParseError(message, line=line, column=column, parser=NAME)


def csv_error(exc: csv.Error, line: int) -> ParseError:
    if "unexpected end of data" in str(exc):
        return error("the file ends inside a quoted cell (file truncated?)", line=line)
    return error(f"the file is not valid CSV here ({exc})", line=line)


def bytes_per_char(encoding: str) -> int:
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
                raise error(
                    f"line {number} is longer than the limit of {char_limit:,} characters; "
                    "a perfmon CSV has one sample per line, so this is not one (or the limit is too low)",
                    line=number,
                )
        yield line


def csv_reader(stream: TextIO, char_limit: int) -> Reader:
    # The csv module's field limit is process-wide; it is only ever raised,
    # to our line limit, so a long but legal cell is bounded by the line check.
    if csv.field_size_limit() < char_limit:
        csv.field_size_limit(char_limit)
    return csv.reader(_lines(stream, char_limit), strict=True)


def check_cells(cells: Sequence[str], header: Header, line: int) -> list[str | None]:
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
        raise error(
            f"the value {shown!r} of counter {path} {problem}; expected a decimal number "
            "such as 12.5 or 6.9e-005, or a blank for a missing sample",
            line=line,
            column=column,
        )
    return values


def picker(positions: list[int], cells: int) -> Callable[[list[str]], Sequence[str]]:
    if positions == list(range(1, cells)):
        return operator.itemgetter(slice(1, None))
    if len(positions) == 1:
        only = positions[0]
        return lambda row: (row[only],)
    return operator.itemgetter(*positions)

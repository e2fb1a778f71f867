"""DiskSpd text report: physical lines, the markers of its layout, and the cells of its tables."""

from __future__ import annotations

import re
from typing import TextIO

from workers.pipeline.parsers.diskspd.reading import error

PARSER = "diskspd_text"

COMMAND = re.compile(r"^\s*Command Line:\s?(.*)$")
# No "\s*:?\s*$" (or ".+?\s*$") tails: two ways to split a run of spaces make a regex
# quadratic in its length, so values are stripped first and the pattern ends at one place.
RESULTS = re.compile(r"^\s*Results for timespan\s+(\d{1,9})(?:\s*:)?$", re.IGNORECASE)  # on stripped text
RULE = re.compile(r"^\s*-{3,}\s*$")
DASHES = re.compile(r"^\s*-+\s*$")  # the rest of a dashed line a console wrapped
STARS = re.compile(r"^\s*\*{3,}\s*$")
THREAD_ROW = re.compile(r"^\s*\d+\s*\|")
TOTAL_ROW = re.compile(r"^\s*total:(.*)$")
CPU_HEADER = re.compile(r"\bCPU\s*\|\s*Usage\s*\|", re.IGNORECASE)
PERCENTILE_ROW = re.compile(r"^\s*(min|max|\d+(?:st|nd|rd|th)|\d+-nines)\s*\|(.*)$", re.IGNORECASE)
WHOLE = re.compile(r"^[0-9]{1,20}$")
DECIMAL = re.compile(r"^\s*-?\d+(?:\.\d+)?\s*$")  # what printf("%.2f") writes: no exponent, no "_"
SECTIONS = {"total io": "total", "read io": "read", "write io": "write"}
SECTION_TITLES = {"total": "Total IO", "read": "Read IO", "write": "Write IO"}


# --------------------------------------------------------------------------
# Reading lines


MAX_REPORT_LINE = 16_384


class Lines:
    """Physical lines without their end-of-line, with one line of look-ahead."""

    def __init__(self, stream: TextIO, limit: int) -> None:
        self._stream = stream
        self._limit = limit
        self._ahead: str | None = None
        self.number = 0  # of the last line returned by next()

    def peek(self) -> str | None:
        if self._ahead is None:
            text = self._stream.readline(self._limit + 1)
            if not text:
                return None
            if len(text) > self._limit and not text.endswith(("\n", "\r")):
                raise error(
                    PARSER,
                    f"line is longer than {self._limit:,} characters; this is not a DiskSpd text report",
                    line=self.number + 1,
                )
            self._ahead = text.rstrip("\r\n").lstrip("\ufeff")
        return self._ahead

    def next(self) -> str | None:
        line = self.peek()
        if line is not None:
            self._ahead = None
            self.number += 1
        return line


def top_level(stripped: str) -> bool:
    """A line that starts a new part of a report (and so ends the current one)."""
    return bool(
        stripped.startswith("Command Line:")
        or stripped in ("Input parameters:", "System information:", "Totals:")
        or RESULTS.match(stripped)
    )


def split_cells(text: str) -> list[str]:
    return [cell.strip() for cell in text.split("|")]


def cell_number(cell: str, what: str, line: int, column: int | None = None) -> float | None:
    """A decimal cell (``12.5`` or ``12.5%``); ``N/A`` (no sample) is None."""
    if DECIMAL.match(cell):
        return float(cell)
    text = cell.strip().rstrip("%").strip()
    if text.upper() == "N/A" or text == "":
        return None
    if DECIMAL.match(text):
        return float(text)
    raise error(PARSER, f"{what} should be a number, got {cell.strip()[:40]!r}", line, column)


def cell_count(cell: str, what: str, line: int, column: int | None = None) -> int:
    text = cell.strip()
    if not WHOLE.match(text):
        raise error(PARSER, f"{what} should be a whole number, got {text[:40]!r}", line, column)
    return int(text)


def without_size(cell: str) -> str:
    """``C:\\x.dat (10GiB)`` -> ``C:\\x.dat``."""
    cell = cell.strip()
    if cell.endswith(")") and (start := cell.rfind("(")) > 0:
        return cell[:start].rstrip()
    return cell


def without_suffix(text: str, suffix: str) -> str:
    """``text`` without a trailing ``suffix`` (any case, then an optional ``:``) and the spaces before it.

    Plain string work: ``re.sub(r"\\s*suffix\\s*:?\\s*$", ...)`` tries every start in a run of
    spaces and is quadratic in its length.
    """
    body = text.rstrip()
    if body.endswith(":"):
        body = body[:-1].rstrip()
    if body[-len(suffix) :].lower() != suffix:
        return text
    return body[: -len(suffix)].rstrip()


def column_of(line: str, index: int) -> int:
    """1-based column where the ``index``-th ``|``-separated cell of ``line`` starts."""
    position = 0
    for _ in range(index):
        found = line.find("|", position)
        if found < 0:
            break
        position = found + 1
    while position < len(line) and line[position] == " ":
        position += 1
    return position + 1

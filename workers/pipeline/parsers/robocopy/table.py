"""The summary table: ``Label : value`` lines and the rows of six counts (or four times) after them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from workers.pipeline.parsers.robocopy.numbers import UNIT_POWER, decimal, seconds

COLUMNS = ("total", "copied", "skipped", "mismatch", "failed", "extras")
TIME_COLUMNS = ("total", "copied", "failed", "extras")
COUNT_ROWS = ("dirs", "files", "bytes")
ROWS = (*COUNT_ROWS, "times")


# A label has no digits (so "2026/01/13 17:59:24 ERROR ..." is not one); the first ":" or
# full-width colon ends it. Matched piecewise by label_value: one regex with spaces on both
# sides of an optional-space label backtracks quadratically on long runs of spaces.
_COLON = re.compile(r"[:\uff1a]")
_LABEL_TEXT = re.compile(r"[^\d\t:\uff1a/\\|\"<>=*?]{1,48}")
_LABEL_PAD = " \u00a0"
_SPLIT = re.compile(r"[ \t\r]+")
_TIME_CELL = re.compile(r"\d{1,9}:\d{2}:\d{2}")
_NUMBER_CELL = re.compile(r"(?P<num>\d(?:[\d.,'\u00a0\u202f]*\d)?)(?:[ \u00a0]?(?P<unit>[kmgtpKMGTP]))?")
_WIDE_CELL = re.compile(r"(?P<num>\d(?:[\d.,'\u00a0\u202f ]*\d)?)(?:[ \u00a0]?(?P<unit>[kmgtpKMGTP]))?")
_UNIT_WORD = re.compile(r"^[kmgtpKMGTP]$")


@dataclass(frozen=True)
class Row:
    """One summary row: six numbers (bytes already scaled) or four durations in seconds."""

    shape: str  # "numbers" or "times"
    values: tuple[Decimal, ...]
    units: bool = False  # a cell had a k/m/g/t unit or a fraction


def _cell(text: str, pattern: re.Pattern[str]) -> tuple[Decimal, bool] | None:
    match = pattern.fullmatch(text)
    if match is None:
        return None
    unit = match["unit"]
    value = decimal(match["num"], fraction=unit is not None)
    if value is None:
        return None
    if unit:
        value *= 1024 ** UNIT_POWER[unit.lower()]
    return value, bool(unit) or value != value.to_integral_value()


def _row_of(cells: list[str], pattern: re.Pattern[str]) -> Row | None:
    if cells and all(_TIME_CELL.fullmatch(cell) for cell in cells if cell) and any(cells):
        times = [cell for cell in cells if cell]
        if len(cells) == 6 and all(cells[i] for i in (0, 1, 4, 5)):
            times = [cells[i] for i in (0, 1, 4, 5)]
        if len(times) != 4:
            return None
        return Row("times", tuple(seconds(cell) for cell in times))
    if len(cells) != 6:
        return None
    values = []
    units = False
    for cell in cells:
        parsed = _cell(cell, pattern)
        if parsed is None:
            return None
        values.append(parsed[0])
        units = units or parsed[1]
    return Row("numbers", tuple(values), units)


def table_row(value: str) -> Row | None:
    """The cells of a summary row (the text after its label), or None if it is not one."""
    body = value.strip(" \t\r")
    if not body or not body[0].isdigit():
        return None
    tokens = _SPLIT.split(body)
    cells: list[str] = []
    for token in tokens:
        if _UNIT_WORD.match(token) and cells and cells[-1][-1:].isdigit():
            cells[-1] += " " + token
        else:
            cells.append(token)
    row = _row_of(cells, _NUMBER_CELL)
    if row is not None:
        return row
    # Fixed width: robocopy right-aligns each cell in ten characters, which
    # keeps numbers grouped with plain spaces apart.
    body = value.rstrip(" \t\r")
    if len(body) > 60:
        return None
    wide = [body[i : i + 10].strip(" \u00a0") for i in range(0, 60, 10)]
    if any(not cell for index, cell in enumerate(wide) if index not in (2, 3)):
        return None
    return _row_of(wide, _WIDE_CELL)


def label_value(line: str) -> tuple[str, str] | None:
    """``(label, value)`` of a ``Label : value`` line whose label holds a letter, else None."""
    colon = _COLON.search(line)
    if colon is None:
        return None
    label = line[: colon.start()].strip(_LABEL_PAD)
    if not _LABEL_TEXT.fullmatch(label) or not any(ch.isalpha() for ch in label):
        return None
    value = line[colon.end() :]
    if value.endswith("\n"):
        value = value[:-1]
    return None if "\n" in value else (label, value)


def has_summary_table(text: str) -> bool:
    numbers = times = 0
    for line in text.splitlines():
        found = label_value(line)
        if found is None:
            continue
        row = table_row(found[1])
        if row is None:
            continue
        if row.shape == "times":
            times += 1
        else:
            numbers += 1
        if times and numbers >= 2:
            return True
    return False

"""FSCT summary layout: its banner, the two tables' header labels, and how a line splits into cells."""

from __future__ import annotations

import re
from dataclasses import dataclass

from workers.pipeline.errors import ParseError

PARSER = "fsct"
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
_TIMESTAMP = r"\d{4}-\d{2}-\d{2}[ T]\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?"
_CELL = re.compile(rf"{_TIMESTAMP}|\S+")
# Matched on one line with its leading space stripped: "^\s*" under re.MULTILINE runs across
# blank lines from every line start, quadratic in a run of them.
_BANNER = re.compile(r"(?:Microsoft\s+)?File\s+Server\s+Capacity\s+Tool\b", re.IGNORECASE)


def error(message: str, line: int | None = None, column: int | None = None) -> ParseError:
    return ParseError(message, line=line, column=column, parser=PARSER)


def is_banner(line: str) -> bool:
    return _BANNER.match(line.lstrip()) is not None


# --------------------------------------------------------------------------
# Tables


@dataclass(frozen=True)
class Cell:
    text: str
    column: int  # 1-based character position


@dataclass(frozen=True)
class Header:
    kind: str  # "results" or "responses"
    fields: list[str | None]  # field per column; None = ignored column
    labels: list[str]
    delimiter: str | None
    line: int


def split_cells(line: str, delimiter: str | None, header: bool = False) -> list[Cell]:
    if delimiter is None:
        if header:
            return _header_labels(line)
        return [Cell(match.group(), match.start() + 1) for match in _CELL.finditer(line)]
    cells = []
    offset = 0
    for piece in line.split(delimiter):
        stripped = piece.strip()
        lead = len(piece) - len(piece.lstrip())
        cells.append(Cell(stripped, offset + lead + 1))
        offset += len(piece) + len(delimiter)
    return cells


def _header_labels(line: str) -> list[Cell]:
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
        cells.append(Cell(line[start:position], start + 1))
    return cells


def _delimiter(line: str) -> str | None:
    return next((d for d in ("\t", ";", ",") if d in line), None)


def _label(text: str) -> str:
    """Lower case, one space between words and before a ``[unit]``.

    Spaces are collapsed first: ``re.sub(r"\\s*\\[", ...)`` on a long run of them is quadratic.
    """
    collapsed = re.sub(r"\s+", " ", text.strip().lower())
    return collapsed.replace(" [", "[").replace("[", " [")


def header_of(line: str, number: int) -> Header | None:
    """The table a header line starts, if it is one."""
    if not line.lstrip().lower().startswith("users"):
        return None
    delimiter = _delimiter(line)
    cells = split_cells(line, delimiter, header=True)
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
            raise error(
                f"column {cells[index].text!r} appears twice in the header", number, cells[index].column
            )
    return Header(kind, fields, [cell.text for cell in cells], delimiter, number)


@dataclass
class Row:
    line: int
    values: dict[str, Cell]
    delimiter: str | None

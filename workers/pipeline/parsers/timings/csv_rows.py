"""Timings as CSV: a header naming at least ``name,started_at,duration_ms``, then one row per line."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from typing import TextIO

from workers.pipeline.parsers.timings.rows import REQUIRED, Clock, Field, RowReader, error
from workers.pipeline.records import Measurement


def csv_header(text: str) -> tuple[str, list[str]] | None:
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


def parse_csv(stream: TextIO, clock: Clock) -> Iterator[Measurement]:
    lines = enumerate(stream, start=1)
    header_line, header_text = next(((n, text) for n, text in lines if text.strip()), (1, ""))
    found = csv_header(header_text)
    if found is None:
        try:
            names = [name.strip() for name in next(csv.reader([header_text]), [])]
        except csv.Error as exc:
            raise error(
                f"malformed CSV header ({exc}); expected a header with at least {','.join(REQUIRED)}",
                line=header_line,
            ) from None
        missing = [name for name in REQUIRED if name not in (n.lower() for n in names)]
        raise error(
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
            raise error(f"column {name!r} appears twice in the header", header_line, number)
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
            raise error(f"malformed CSV row: {exc}", start) from None
        if not any(cell.strip() for cell in cells):
            continue
        if len(cells) > len(columns) and any(cell.strip() for cell in cells[len(columns) :]):
            raise error(
                f"row has {len(cells)} fields but the header has {len(columns)}", start, len(columns) + 1
            )
        if len(cells) < len(columns):
            raise error(
                f"row has {len(cells)} fields but the header has {len(columns)}", start, len(cells) + 1
            )
        fields: dict[str, Field] = {}
        dims: dict[str, Field] = {}
        for number, ((key, is_dim), cell) in enumerate(zip(columns, cells, strict=False), start=1):
            target = dims if is_dim else fields
            target[key] = Field(cell, start, number, text=True)
        yield RowReader(fields, start, None, clock, extra_dims=dims).measurement()

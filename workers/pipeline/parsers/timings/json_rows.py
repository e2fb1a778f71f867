"""Timings as JSON: a list of rows, a ``{"timings": [...]}`` object or JSON Lines, read through a window."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from workers.pipeline.decode import Decoded
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.common.messages import show
from workers.pipeline.parsers.timings.json_scanner import JsonScanner, Node
from workers.pipeline.parsers.timings.rows import (
    PARSER,
    Clock,
    Defaults,
    Field,
    RowReader,
    error,
    scenario_dims,
)
from workers.pipeline.records import Measurement

_WS = re.compile(r"[ \t\r\n]*")


def _skip_ws(text: str, index: int) -> int:
    match = _WS.match(text, index)
    return match.end() if match else index


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
        raise error(
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
            raise error('invalid JSON: "timings" must be a list of timing objects', line, column)
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


def parse_json(decoded: Decoded, clock: Clock) -> Iterator[Measurement]:
    """A list of rows is read once; any other document twice, its layout found by the first pass."""
    with decoded.open_text() as stream:
        scanner = JsonScanner(stream, PARSER)
        start = scanner.skip(0, release=True)
        if scanner.char(start) == "[":
            yield from _json_list(scanner, start, clock)
            return
        layout = _json_layout(scanner, start)
    defaults = _json_defaults(layout.members) if layout.members is not None else Defaults()
    with decoded.open_text() as stream:
        scanner = JsonScanner(stream, PARSER)
        for row in _json_rows(scanner, layout):
            yield _json_row(scanner, row, clock, defaults)


def _json_list(scanner: JsonScanner, start: int, clock: Clock) -> Iterator[Measurement]:
    """The rows of the list at ``start``, each checked as it is pulled. A bad row is reported
    only once the rest of the document has been read: a syntax error anywhere in it comes first,
    as it did when the whole document was checked before any row."""
    end: list[int] = []
    rows = scanner.elements(start, end)
    for row in rows:
        try:
            measurement = _json_row(scanner, row, clock, Defaults())
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


def _json_defaults(members: dict[str, Node]) -> Defaults:
    defaults = Defaults()
    if "scenario" in members and members["scenario"].value is not None:
        node = members["scenario"]
        defaults.scenario = scenario_dims(Field(node.value, *_position(node))) or None
    if "host" in members and members["host"].value is not None:
        node = members["host"]
        if not isinstance(node.value, str):
            raise error(f'"host" must be a string, got {show(node.value)}', *_position(node))
        defaults.host = node.value.strip() or None
    return defaults


def _position(node: Node) -> tuple[int, int]:
    assert node.position is not None, "a wrapper member is located as it is read"
    return node.position


def _json_row(scanner: JsonScanner, row: Node, clock: Clock, defaults: Defaults) -> Measurement:
    line, column = scanner.where(row.offset)
    if not isinstance(row.value, dict):
        raise error(f"expected a timing object, got {show(row.value)}", line, column)
    fields = {key: Field(value, line, column) for key, value in row.value.items()}
    try:
        return RowReader(fields, line, column, clock, defaults).measurement()
    except ParseError:
        # A bad row: walk it again to point at the offending value.
        located, _ = scanner.node(row.offset, located=1)
        assert located.members is not None
        fields = {
            key: Field(child.value, *scanner.where(child.offset)) for key, child in located.members.items()
        }
        return RowReader(fields, line, column, clock, defaults).measurement()


def first_json_row(text: str) -> dict[str, Any] | None:
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

"""Timings from PowerShell ``Measure-Command`` output: ``Days : 0 ... TotalMilliseconds : 1234.5``."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from itertools import chain

from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.common.messages import show
from workers.pipeline.parsers.timings.rows import NUMBER, Clock, error, to_number
from workers.pipeline.records import Measurement

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


# Matched line by line, and the value stripped rather than matched by "(.*?)\s*$": a regex
# that can split a run of spaces two ways (or whose \s runs across lines) is quadratic in it.
_KEY_VALUE = re.compile(r"^\s*([A-Za-z]+)\s*:(.*)$")
_MC_DAYS = re.compile(r"\s*Days\s*:\s*\d+\s*")
_MC_TOTAL = re.compile(r"\s*TotalMilliseconds\s*:")
_MC_TABLE_HEADER = re.compile(r"\s*TotalMilliseconds\s*")
RULE = re.compile(r"^\s*-{3,}\s*$")
_LINE_BREAK = re.compile("\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


def looks_like_measure_command(text: str) -> bool:
    """A ``Days : 0`` line with a ``TotalMilliseconds :`` line after it, or a ``TotalMilliseconds`` table."""
    days_seen = after_header = False
    for line in text.split("\n"):
        if days_seen and _MC_TOTAL.match(line):
            return True
        if after_header and line.strip():
            if RULE.match(line):
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


def parse_measure_command(text: str, context: ParseContext, clock: Clock) -> Iterator[Measurement]:
    blocks = _timespan_blocks(text)
    first = next(blocks, None)
    if first is None:
        raise error("no Measure-Command results found (expected 'TotalMilliseconds : <number>')", line=1)
    started_text = context.extra.get("started_at", "").strip()
    if not started_text:
        raise error(
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
            raise error(
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
        if line.strip().lower() == "totalmilliseconds" and rule is not None and RULE.match(rule[1]):
            if current is not None:
                yield current
            current = None
            next(lines)
            while (row := lines.peek()) is not None and NUMBER.match(row[1].strip()):
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
        value = to_number(text, comma_decimal=True)
        label = "TotalMilliseconds"
    elif "ticks" in block.values:
        text, line = block.values["ticks"]
        ticks = to_number(text, comma_decimal=True)
        value = None if ticks is None else ticks / 10_000
        label = "Ticks"
    else:
        raise error("Measure-Command result has neither TotalMilliseconds nor Ticks", block.line)
    if value is None or not math.isfinite(value) or value < 0:
        raise error(f"{label} must be a non-negative number, got {show(text)}", line)
    return value

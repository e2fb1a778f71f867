"""Validate stage: checks every parser's output must pass, whatever the format.

Parsers check their own syntax; this stage checks meaning shared by all
formats (plausible timestamps, finite values, sane names), lazily, so a
500 MB stream is still validated row by row as it is loaded.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime, timedelta

from workers.pipeline.errors import ParseError
from workers.pipeline.records import CounterRow, Measurement, Parsed

EARLIEST = datetime(1990, 1, 1, tzinfo=UTC)
# timeseries_counterseries stores object, instance and counter names in 255 characters.
MAX_NAME = 255
FUTURE_SLACK = timedelta(days=2)


def _check_time(moment: datetime, line: int | None, parser: str) -> None:
    if moment.tzinfo is None:
        raise ParseError("timestamp has no time zone", line=line, parser=parser)
    if moment < EARLIEST or moment > datetime.now(UTC) + FUTURE_SLACK:
        raise ParseError(
            f"timestamp {moment.isoformat()} is implausible (expected between 1990 and now)",
            line=line,
            parser=parser,
        )


def _rows(rows: Iterable[CounterRow], parser: str) -> Iterator[CounterRow]:
    previous: datetime | None = None
    for row in rows:
        if row.time != previous:
            _check_time(row.time, row.line, parser)
            previous = row.time
        yield row


def _measurements(items: Iterable[Measurement], parser: str) -> Iterator[Measurement]:
    for item in items:
        _check_time(item.time, item.line, parser)
        if not item.metric.strip():
            raise ParseError("a result has an empty name", line=item.line, parser=parser)
        if len(item.metric) > 200:
            raise ParseError("a result name is longer than 200 characters", line=item.line, parser=parser)
        if not math.isfinite(item.value):
            raise ParseError(
                f"{item.metric}: value {item.value} is not a finite number", line=item.line, parser=parser
            )
        if item.repetition < 1:
            raise ParseError(f"{item.metric}: repetition must be 1 or more", line=item.line, parser=parser)
        yield item


def validate(parsed: Parsed, *, max_columns: int) -> Parsed:
    """Wrap the parser's streams with the shared checks (nothing is consumed here)."""
    if parsed.counters is not None:
        if len(parsed.counters.columns) > max_columns:
            raise ParseError(
                f"the file has {len(parsed.counters.columns):,} counter columns; the limit is {max_columns:,}",
                line=1,
                parser=parsed.parser,
            )
        for index, column in enumerate(parsed.counters.columns, start=1):
            for part in ("object", "instance", "counter"):
                if len(getattr(column, part)) > MAX_NAME:
                    raise ParseError(
                        f"counter column {index:,} ({(column.source_path or column.counter)[:80]!r}...): its "
                        f"{part} name is longer than {MAX_NAME} characters; expected a Windows counter name",
                        line=1,
                        parser=parsed.parser,
                    )
        parsed.counters.rows = _rows(parsed.counters.rows, parsed.parser)
    parsed.measurements = _measurements(parsed.measurements, parsed.parser)
    return parsed

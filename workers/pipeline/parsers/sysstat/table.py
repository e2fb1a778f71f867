"""sysstat activities, sample by sample, gathered into one wide counter table."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.common.messages import show
from workers.pipeline.parsers.sysstat.mapping import Activity, BadValue, counters
from workers.pipeline.parsers.sysstat.times import NAME
from workers.pipeline.records import CounterColumn, CounterRow, CounterTable


def gather(samples: Iterable[tuple[str, datetime, Activity]]) -> CounterTable:
    """One column per (host, object, instance, counter), one row per time; a later value for the same cell wins."""
    columns: dict[tuple[str, str, str, str], int] = {}
    sources: list[str] = []
    rows: dict[datetime, tuple[int, dict[int, str]]] = {}
    for host, time, activity in samples:
        try:
            values = counters(activity)
        except BadValue as exc:
            raise ParseError(
                f"{activity.kind} field {exc.field!r} is {show(exc.text)}; expected a decimal number",
                line=activity.line,
                parser=NAME,
            ) from None
        _, cells = rows.setdefault(time, (activity.line, {}))
        for value in values:
            key = (host, value.object, value.instance, value.counter)
            index = columns.get(key)
            if index is None:
                index = columns[key] = len(columns)
                sources.append(value.source)
            cells[index] = value.text
    if not columns:
        raise ParseError(
            "the file holds no CPU, memory, disk, network, queue or I/O figures; record with "
            "sar/sadf activities -u, -r, -d, -n DEV, -q or -b (sadf -j FILE -- -A gives them all)",
            parser=NAME,
        )
    width = len(columns)
    ordered = [
        CounterRow(time, [cells.get(index) for index in range(width)], line)
        for time, (line, cells) in sorted(rows.items())
    ]
    header = [CounterColumn(*key, source_path=source) for key, source in zip(columns, sources, strict=True)]
    return CounterTable(columns=header, rows=iter(ordered))

"""``sadf -d`` output: semicolon-separated sections, each under its own ``# hostname;interval;timestamp;...`` header.

A data line is ``host;interval;timestamp;[instance;]field;...``: the
instance column is ``CPU`` (``-1`` = all), ``DEV`` or ``IFACE`` for the
activities that have one. Lines with interval ``-1`` are restarts
(``LINUX-RESTART``) and comments (``COM ...``), and are skipped. Sections
are told apart by their columns: ``%idle`` (CPU), ``kbmemfree`` (memory),
``DEV`` + ``tps`` (disks), ``IFACE`` + ``rxkB/s`` (interfaces),
``runq-sz`` (queue and load), ``bread/s`` (I/O totals); other sections
(interrupts, paging, sockets, power ...) are read past.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import TextIO

from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.sysstat.mapping import Activity
from workers.pipeline.parsers.sysstat.times import NAME, from_cell

HEADER = "# hostname;interval;timestamp;"
_INSTANCE_COLUMNS = {"CPU", "DEV", "IFACE"}


def canonical(column: str) -> str:
    """A ``sadf -d`` column name in ``sadf -j``'s spelling: ``rkB/s`` -> ``rkB``, ``%util`` -> ``util-percent``."""
    name = column.strip()
    if name.endswith("/s"):
        name = name[:-2]
    if name.startswith("%"):
        return f"{name[1:]}-percent"
    if name.startswith("kb") and len(name) > 2:
        return name[2:]
    return name


def _kind(columns: list[str]) -> str | None:
    first = columns[0] if columns else ""
    names = set(columns)
    if first == "CPU" and "%idle" in names:
        return "cpu"
    if "kbmemfree" in names:
        return "memory"
    if first == "DEV" and "tps" in names:
        return "disk"
    if first == "IFACE" and "rxkB/s" in names:
        return "net"
    if "runq-sz" in names:
        return "queue"
    if first == "tps" and "bread/s" in names:
        return "io"
    return None


def read_csv(stream: TextIO, context: ParseContext) -> Iterator[tuple[str, datetime, Activity]]:
    """Every activity line of the sections Headroom reads, with its host and UTC time."""
    kind: str | None = None
    columns: list[str] = []
    seen_header = False
    for number, raw in enumerate(stream, start=1):
        line = raw.rstrip("\r\n")
        if not line.strip():
            continue
        if line.startswith("#"):
            if not line.startswith(HEADER):
                raise ParseError(
                    f"a header line must start with {HEADER!r} (sadf -d output)", line=number, parser=NAME
                )
            columns = line[len(HEADER) :].split(";")
            kind = _kind(columns)
            seen_header = True
            continue
        if not seen_header:
            raise ParseError(f"expected a {HEADER!r} header before the data", line=number, parser=NAME)
        cells = line.split(";")
        if len(cells) >= 2 and cells[1].strip() == "-1":
            continue  # LINUX-RESTART or COM: not a sample
        if kind is None:
            continue
        if len(cells) != len(columns) + 3:
            raise ParseError(
                f"line {number} has {len(cells)} fields, expected {len(columns) + 3} as its section header says",
                line=number,
                parser=NAME,
            )
        time = from_cell(cells[2], context, number)
        values = cells[3:]
        instance = ""
        if columns[0] in _INSTANCE_COLUMNS:
            instance = values[0].strip()
            names, values = columns[1:], values[1:]
        else:
            names = columns
        fields = {canonical(name): value for name, value in zip(names, values, strict=True)}
        yield cells[0].strip() or context.host, time, Activity(kind, instance, fields, number)

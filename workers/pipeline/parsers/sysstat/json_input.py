"""``sadf -j`` output: ``{"sysstat": {"hosts": [{"nodename", "statistics": [...]}]}}``.

Numbers are kept as the text the file holds (``parse_float=str``), so 2.15
stays 2.15. Each statistic has a ``timestamp`` (``{"date", "time", "tz"}``
since sysstat 12, ``{"date", "time", "utc": 1}`` before) and one entry per
activity: ``cpu-load`` / ``cpu-load-all`` (a list by ``cpu``), ``memory``,
``disk`` (a list by ``disk-device``), ``network`` -> ``net-dev`` (a list by
``iface``), ``queue`` and ``io`` (nested ``io-reads`` / ``io-writes``).
Other activities (interrupts, paging, sockets, power ...) are not read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.sysstat.mapping import Activity
from workers.pipeline.parsers.sysstat.times import NAME, to_utc

_TIMESTAMP = re.compile(r'"timestamp"\s*:')
_LISTS = (("cpu-load", "cpu", "cpu"), ("cpu-load-all", "cpu", "cpu"), ("disk", "disk", "disk-device"))
_SINGLE = (("memory", "memory"), ("queue", "queue"))


def _scalars(entry: dict[str, Any]) -> dict[str, str]:
    """The entry's fields as text, nested objects (``io-reads``) flattened into it."""
    fields: dict[str, str] = {}
    for key, value in entry.items():
        if isinstance(value, dict):
            fields.update(_scalars(value))
        elif isinstance(value, str):
            fields[key] = value
    return fields


def _activities(statistic: dict[str, Any], line: int) -> Iterator[Activity]:
    for key, kind, name in _LISTS:
        for entry in statistic.get(key) or ():
            if isinstance(entry, dict):
                yield Activity(kind, str(entry.get(name, "")), _scalars(entry), line)
    for key, kind in _SINGLE:
        entry = statistic.get(key)
        if isinstance(entry, dict):
            yield Activity(kind, "", _scalars(entry), line)
    io = statistic.get("io")
    if isinstance(io, dict):
        yield Activity("io", "", _scalars(io), line)
    network = statistic.get("network")
    if isinstance(network, dict):
        for entry in network.get("net-dev") or ():
            if isinstance(entry, dict):
                yield Activity("net", str(entry.get("iface", "")), _scalars(entry), line)


def _zone(stamp: dict[str, Any]) -> str:
    """The timestamp's zone label: "UTC", sysstat 12's ``tz``, or "local" for ``"utc": 0``."""
    if str(stamp.get("utc", "")) == "1":
        return "UTC"
    if "tz" in stamp:
        return str(stamp["tz"])
    return "local" if "utc" in stamp else ""


def _lines(text: str) -> list[int]:
    return [text.count("\n", 0, match.start()) + 1 for match in _TIMESTAMP.finditer(text)]


def read_json(text: str, context: ParseContext) -> Iterator[tuple[str, datetime, Activity]]:
    """Every activity of every host's statistics, with its host and UTC time."""
    try:
        document = json.loads(text, parse_float=str, parse_int=str)
    except json.JSONDecodeError as exc:
        raise ParseError(
            f"the file is not valid JSON: {exc.msg}", line=exc.lineno, column=exc.colno, parser=NAME
        ) from None
    hosts = document.get("sysstat", {}).get("hosts") if isinstance(document, dict) else None
    if not isinstance(hosts, list):
        raise ParseError('expected sadf -j output: {"sysstat": {"hosts": [...]}}', line=1, parser=NAME)
    lines = _lines(text)
    position = 0
    for host in hosts:
        name = str(host.get("nodename") or context.host or "") if isinstance(host, dict) else ""
        statistics = host.get("statistics") if isinstance(host, dict) else None
        for statistic in statistics if isinstance(statistics, list) else ():
            line = lines[position] if position < len(lines) else 1
            position += 1
            stamp = statistic.get("timestamp") if isinstance(statistic, dict) else None
            if not isinstance(stamp, dict):
                continue  # sadf writes every statistic with one; an empty {} has nothing to read
            zone = _zone(stamp)
            time = to_utc(str(stamp.get("date", "")), str(stamp.get("time", "")), zone, context, line)
            for activity in _activities(statistic, line):
                yield name, time, activity

"""How one run's figure from several hosts becomes one figure: the rules of issue 20, in one place.

Many hosts reporting into one run ran the test together (a VMFleet, a set of
load clients, several copy jobs at once), so their figures combine by what
they measure (:func:`kind`):

* ``rate`` -- per second or per minute (IO/s, MB/s, B/s ...): summed, the fleet's throughput;
* ``count`` -- things done (bytes, files, I/Os, errors): summed;
* ``mean`` -- a latency, a response time, a duration, a level: averaged weighted by each
  host's operation count when every host has one (:func:`operations_metric`), else an
  unweighted mean -- or, where each host's value is a sample of its own (a compare), pooled;
* ``percentile`` and ``maximum`` -- never averaged: the highest host's, said as ``"maximum"``;
* ``minimum`` -- the lowest host's.

Block size, compare, copies and capacity combine with :func:`combine` and keep
each host's own value for the per-host rows their pages show on demand.
Server counters in capacity are never combined at all: each server is its own
curve (``analysis.capacity``).
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Mapping
from typing import Literal, TypeVar

Kind = Literal["rate", "count", "mean", "percentile", "maximum", "minimum"]
K = TypeVar("K", bound=Hashable)

RATE_UNITS = ("io/s", "iops", "mb/s", "mib/s", "b/s", "kb/s", "gb/s", "mib/min", "scenarios/s")
COUNT_UNITS = ("count", "b", "bytes", "ios")
DIRECTIONS = ("read", "write", "trim", "total", "readwrite", "rw")
_PERCENTILE = re.compile(r"^p\d+(?:_\d+)?(?:_(?:ms|us|ns|s))?$")
NO_HOST = "(no host)"


def kind(metric: str, unit: str) -> Kind:
    """What a figure is, for combining hosts: its name's last part and its unit decide."""
    name = metric.lower()
    last = name.rsplit(".", 1)[-1]
    unit_key = unit.strip().lower()
    if _PERCENTILE.match(last):
        return "percentile"
    if last.startswith("max"):
        return "maximum"
    if last.startswith("min") and not last.startswith("mins"):
        return "minimum"
    if unit_key in RATE_UNITS or unit_key.endswith("/s") or last in ("iops", "mbps", "bytes_per_s"):
        return "rate"
    if unit_key in COUNT_UNITS or last in ("ios", "bytes", "count", "errors"):
        return "count"
    return "mean"


def operations_metric(metric: str) -> str | None:
    """The figure that counts a latency's operations (``read.lat.mean_ms`` -> ``read.iops``), if any."""
    parts = metric.lower().split(".")
    if len(parts) > 1 and parts[0] in DIRECTIONS and any("lat" in p for p in parts[1:]):
        return f"{parts[0]}.iops"
    return None


def combine(
    what: Kind,
    by_host: Mapping[K, float],
    weights: Mapping[K, float] | None = None,
    weighted_by: str = "IOPS",
) -> tuple[float, str]:
    """One figure from its hosts' values, and how it was combined (``""`` for a single host)."""
    values = list(by_host.values())
    if len(values) == 1:
        return values[0], ""
    if what in ("rate", "count"):
        return sum(values), "sum"
    if what == "minimum":
        return min(values), "minimum"
    if what in ("percentile", "maximum"):
        return max(values), "maximum"
    if weights is not None and all(weights.get(h, 0) > 0 for h in by_host):
        total = sum(weights[h] for h in by_host)
        return sum(v * weights[h] for h, v in by_host.items()) / total, f"{weighted_by}-weighted mean"
    return sum(values) / len(values), "mean"


def host_rows(values: Mapping[int, list[float]], names: Mapping[int, str]) -> tuple[tuple[str, float], ...]:
    """``(host name, mean of its values)`` per host, by name: the rows shown on demand."""
    return tuple(sorted((names.get(h, NO_HOST), sum(v) / len(v)) for h, v in values.items() if v))

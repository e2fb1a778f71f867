"""Block-size throughput: DiskSpd/fio figures per scenario against the block size of their run.

Storage benchmarks store one run per execution with its parameters as run
attributes (``block_size`` in bytes, e.g. ``"4096"``; fio may give
``"65536,4096"`` for read,write or a range ``"4096-16384"``, whose first
figure is used). Their figures are measurements named
``<direction>.<figure>`` (``read.iops``, ``write.mbps``,
``read.clat.p99_ms`` ...). Three families are charted:

* throughput -- ``*.mbps`` or a MB/s / MiB/s unit;
* IOPS -- ``*.iops`` or an IO/s unit;
* latency -- names with ``lat`` in a time unit, converted to milliseconds,
  one statistic per name suffix (``mean``, ``p50``, ``p99``, ``p99_9`` ...).

Spreads (``*_stddev``) are left out. Per run and host, a figure reported for several subjects (jobs, targets) is the one
for the ``total`` subject when present, else the sum over subjects for
throughput and IOPS and their mean for latency.

Many hosts reporting into one run ran the test together (a VMFleet, a set of
load clients against one server), so a run's figure combines its hosts by what
it measures (the rules of ``analysis.hosts``): throughput and IOPS are summed; a mean latency is averaged
weighted by each host's IOPS in that direction (a plain mean where a host has
none); a percentile is never averaged -- the run shows the highest host's, and
says so (``combined``). Each point keeps the per-host values (``per_host``).
Repeated runs of a scenario
at one block size are averaged only when every other execution parameter
(``metric_groups.PARAMS``: read/write mix, queue depth, threads ...) is the
same too; a scenario holding several such executions gets one line each,
named by what differs (``execution``), never an average across them.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import asdict, dataclass
from typing import Any, Literal

from django.db import connection

from webapp.analysis.hosts import Kind, combine, host_rows
from webapp.analysis.metric_groups import PARAMS, execution_label
from webapp.core.models import Campaign, Host, Run

Family = Literal["mbps", "iops", "latency"]
DIRECTIONS = ("read", "write", "trim", "total", "readwrite", "rw")
TOTAL_SUBJECTS = ("", "total", "_total", "all")
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b?)\s*$", re.IGNORECASE)
_PERCENTILE = re.compile(r"^p(\d+(?:_\d+)?)(?:_(?:ms|us|ns|s))?$")
_TO_MS = {"ms": 1.0, "s": 1000.0, "us": 0.001, "µs": 0.001, "μs": 0.001, "ns": 0.000001}


@dataclass(frozen=True)
class Figure:
    family: Family
    direction: str
    stat: str  # "" for throughput and IOPS; mean, p50, p99 ... for latency
    unit: str
    scale: float = 1.0


@dataclass(frozen=True)
class BlockPoint:
    scenario: int
    label: str
    execution: str  # the other parameters, when the scenario holds more than one set of them; else ""
    block_size: str  # as the run attribute spelled it
    block_bytes: int | None
    family: Family
    direction: str
    stat: str
    unit: str
    value: float
    runs: int
    hosts: int = 1  # distinct hosts behind the value
    combined: str = ""  # how several hosts' figures became one: "sum", "IOPS-weighted mean", "maximum"
    per_host: tuple[tuple[str, float], ...] = ()  # (host name, value averaged over the point's runs)


def block_bytes(text: str) -> int | None:
    """``"4096"``, ``"4K"``, ``"64KiB"``, ``"65536,4096"`` or ``"4096-16384"`` -> bytes of the first size."""
    first = re.split(r"[,\-/:]", str(text), maxsplit=1)[0]
    found = _SIZE.match(first)
    if found is None:
        return None
    number, prefix = float(found.group(1)), found.group(2).lower()
    return int(number * 1024 ** " kmgt".index(prefix or " "))


def classify(metric: str, unit: str) -> Figure | None:
    """The chart family of a benchmark figure, or None for figures the charts do not show."""
    if "stddev" in metric.lower():
        return None  # a spread, not a level: the charts show levels
    parts = metric.lower().split(".")
    direction = parts[0] if parts[0] in DIRECTIONS and len(parts) > 1 else "total"
    rest = parts[1:] if direction == parts[0] else parts
    unit_key = unit.strip().lower()
    if (rest and rest[-1] in ("iops", "io/s")) or unit_key in ("iops", "io/s", "ios/s"):
        return Figure("iops", direction, "", "IO/s")
    if (rest and rest[-1] == "mbps") or unit_key in ("mb/s", "mib/s"):
        return Figure("mbps", direction, "", "MiB/s" if unit_key == "mib/s" else "MB/s")
    if any("lat" in part for part in rest) and unit_key in _TO_MS:
        last = rest[-1]
        percentile = _PERCENTILE.match(last)
        if percentile:
            stat = "p" + percentile.group(1)
        elif last.startswith(("mean", "avg")):
            stat = "mean"
        else:
            stat = last.removesuffix("_ms")
        kind = next((p for p in rest if "lat" in p), "lat")
        return Figure(
            "latency",
            direction,
            stat if kind in ("lat", "latency") else f"{kind} {stat}",
            "ms",
            _TO_MS[unit_key],
        )
    return None


def _subjects(values: dict[str, float], figure: Figure) -> float:
    """One host's figure over its subjects: the total's, else the sum (rates) or mean (latency)."""
    total = next((values[s] for s in values if s.lower() in TOTAL_SUBJECTS), None)
    if total is not None:
        return total
    if figure.family == "latency":
        return sum(values.values()) / len(values)
    return sum(values.values())


def host_kind(figure: Figure) -> Kind:
    """What a chart figure is for combining hosts (``analysis.hosts``): rates, means, extremes."""
    if figure.family != "latency":
        return "rate"
    stat = figure.stat.split(" ")[-1]
    return "mean" if stat == "mean" else "minimum" if stat == "min" else "percentile"


@dataclass(frozen=True)
class RunFigure:
    value: float
    combined: str
    by_host: dict[int, float]


def _per_run(rows: list[tuple[int, int, str, str, str, float]]) -> dict[tuple[int, Figure], RunFigure]:
    """One value per run and figure, combining subjects, then hosts, as the module docstring says."""
    by_subject: dict[tuple[int, Figure, int], dict[str, float]] = defaultdict(dict)
    for run_id, host_id, metric, subject, unit, value in rows:
        figure = classify(metric, unit)
        if figure is not None:
            by_subject[(run_id, figure, host_id)][subject] = value * figure.scale
    by_host: dict[tuple[int, Figure], dict[int, float]] = defaultdict(dict)
    for (run_id, figure, host_id), subjects in by_subject.items():
        by_host[(run_id, figure)][host_id] = _subjects(subjects, figure)
    combined = {}
    for (run_id, figure), hosts in by_host.items():
        weights = by_host.get((run_id, Figure("iops", figure.direction, "", "IO/s")), {})
        value, how = combine(host_kind(figure), hosts, weights)
        combined[(run_id, figure)] = RunFigure(value, how, hosts)
    return combined


def _other_params(run: Run) -> tuple[tuple[str, str], ...]:
    """The run's execution parameters other than the block size, and what it tested, as a sortable key.

    The target (a disk, a file) is not an execution parameter for comparing scenarios (an
    HDD scenario's test file is rarely the SSD's), but within a scenario two targets are two
    lines: an HDD and an SSD test in one file must never be averaged into one point.
    """
    return tuple(
        sorted(
            (k, str(v))
            for k, v in run.attributes.items()
            if (k in PARAMS and k != "block_size") or k == "target"
        )
    )


def block_size_points(campaign: Campaign) -> list[BlockPoint]:
    runs = {
        run.pk: run
        for run in Run.objects.filter(campaign=campaign, attributes__has_key="block_size").select_related(
            "scenario"
        )
    }
    if not runs:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT run_id, host_id, metric, subject, unit, avg(value) FROM measurement"
            " WHERE run_id = ANY(%s) GROUP BY run_id, host_id, metric, subject, unit",
            [list(runs)],
        )
        rows = cursor.fetchall()
    scenarios = {run.scenario_id: run.scenario for run in runs.values()}
    executions = {run_id: _other_params(run) for run_id, run in runs.items()}
    sets: dict[int, set[tuple[tuple[str, str], ...]]] = defaultdict(set)
    for run_id, run in runs.items():
        sets[run.scenario_id].add(executions[run_id])
    grouped: dict[tuple[int, str, tuple[tuple[str, str], ...], Figure], list[RunFigure]] = defaultdict(list)
    for (run_id, figure), found in _per_run(rows).items():
        run = runs[run_id]
        grouped[(run.scenario_id, str(run.attributes["block_size"]), executions[run_id], figure)].append(
            found
        )
    names = dict(
        Host.objects.filter(pk__in={h for row in rows for h in (row[1],) if h}).values_list("pk", "name")
    )
    points = []
    for (scenario_id, size, other, figure), found_in_runs in grouped.items():
        values = [f.value for f in found_in_runs]
        per_host: dict[int, list[float]] = defaultdict(list)
        for f in found_in_runs:
            for host_id, value in f.by_host.items():
                per_host[host_id].append(value)
        hows = sorted({f.combined for f in found_in_runs if f.combined})
        points.append(
            BlockPoint(
                scenario_id,
                scenarios[scenario_id].label,
                execution_label(dict(other)) if len(sets[scenario_id]) > 1 else "",
                size,
                block_bytes(size),
                figure.family,
                figure.direction,
                figure.stat,
                figure.unit,
                sum(values) / len(values),
                len(values),
                len(per_host),
                ", ".join(hows),
                host_rows(per_host, names),
            )
        )
    points.sort(
        key=lambda p: (
            p.scenario,
            p.execution,
            p.family,
            p.direction,
            p.stat,
            p.block_bytes or 0,
            p.block_size,
        )
    )
    return points


def as_json(points: list[BlockPoint]) -> list[dict[str, Any]]:
    return [asdict(p) for p in points]

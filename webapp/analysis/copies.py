"""Copy and migration comparison: time to complete and resource use per technique and data set.

A copy run is a run whose scenario (or the run's own attributes) names a
``technique`` -- robocopy, Storage Replica, Copy-Item ... -- or that a
robocopy log produced. Runs with the same technique, data set and options
form one configuration; its durations (measurements named *time to
complete*, *elapsed* or *duration* in a time unit) give mean, spread and the
number of rounds.

Resource use is read from the counters of the run's hosts during each copy
(from its start to its start plus its duration): processor time and memory,
exactly, through the rollup-backed window statistics.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import connection

from webapp.analysis.stats import mean, stdev
from webapp.analysis.windows import Window, window_stats
from webapp.core.models import Campaign, Run
from webapp.timeseries.models import CounterSeries

DURATION = re.compile(r"time to complete|elapsed|duration", re.IGNORECASE)
_SECONDS = {"ms": 0.001, "s": 1.0, "sec": 1.0, "min": 60.0, "h": 3600.0}
# (label, object, instance, counter) of the resource counters shown.
RESOURCES = (
    ("CPU %", "Processor", "_Total", "% Processor Time"),
    ("Memory committed %", "Memory", "", "% Committed Bytes In Use"),
    ("Memory available MB", "Memory", "", "Available MBytes"),
)


@dataclass
class Configuration:
    technique: str
    dataset: str
    options: str
    runs: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    windows: list[tuple[int, datetime, datetime]] = field(default_factory=list)  # run, start, end

    def as_dict(self) -> dict[str, Any]:
        return {
            "technique": self.technique,
            "dataset": self.dataset,
            "options": self.options,
            "runs": self.runs,
            "n": len(self.seconds),
            "seconds": self.seconds,
            "mean_s": mean(self.seconds) if self.seconds else None,
            "stdev_s": stdev(self.seconds),
            "min_s": min(self.seconds, default=None),
            "max_s": max(self.seconds, default=None),
        }


def _dim(run: Run, name: str) -> str:
    return str(run.scenario.dims.get(name) or (run.attributes or {}).get(name) or "")


def copy_runs(campaign: Campaign) -> list[Run]:
    runs = Run.objects.filter(campaign=campaign).select_related("scenario").prefetch_related("hosts")
    return [r for r in runs if _dim(r, "technique") or r.tool.lower() == "robocopy"]


def copy_comparison(campaign: Campaign) -> dict[str, Any]:
    """``{configurations, resources, figures}`` for the copy runs of a campaign."""
    runs = {r.pk: r for r in copy_runs(campaign)}
    configs: dict[tuple[str, str, str], Configuration] = {}
    numbers: dict[tuple[str, str, str], int] = {}
    figures: dict[tuple[int, str, str, str], list[float]] = defaultdict(list)
    rows: list[tuple[int, datetime, str, str, float, str]] = []
    if runs:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT run_id, time, metric, subject, value, unit FROM measurement WHERE run_id = ANY(%s) "
                "ORDER BY run_id, metric, repetition, time",
                [list(runs)],
            )
            rows = cursor.fetchall()
    for run_id, time, metric, subject, value, unit in rows:
        run = runs[run_id]
        technique = _dim(run, "technique") or run.tool or "(unknown)"
        key = (technique, _dim(run, "dataset") or _dim(run, "source"), _dim(run, "options"))
        if key not in configs:
            configs[key] = Configuration(*key)
            numbers[key] = len(numbers)
        config = configs[key]
        if run_id not in config.runs:
            config.runs.append(run_id)
        scale = _SECONDS.get(unit.strip().lower())
        if DURATION.search(metric) and scale is not None:
            seconds = value * scale
            config.seconds.append(seconds)
            config.windows.append((run_id, time, time + timedelta(seconds=seconds)))
        else:
            figures[(numbers[key], metric, subject, unit)].append(value)
    ordered = list(configs.values())
    return {
        "configurations": [c.as_dict() for c in ordered],
        "resources": _resources(ordered, runs),
        "figures": [
            {"configuration": i, "metric": m, "subject": s, "unit": u, "mean": mean(v), "n": len(v)}
            for (i, m, s, u), v in sorted(figures.items())
        ],
    }


def _resources(configs: list[Configuration], runs: dict[int, Run]) -> list[dict[str, Any]]:
    """Average and maximum of each resource counter per configuration and host, during the copies."""
    host_ids = {h.pk for run in runs.values() for h in run.hosts.all()}
    series: dict[tuple[int, int], list[int]] = defaultdict(list)  # (host, resource) -> series ids
    for sid, host_id, obj, instance, counter in CounterSeries.objects.filter(
        host_id__in=host_ids
    ).values_list("pk", "host_id", "object", "instance", "counter"):
        for index, (_, r_obj, r_instance, r_counter) in enumerate(RESOURCES):
            if (obj, instance, counter) == (r_obj, r_instance, r_counter):
                series[(host_id, index)].append(sid)
    keys: dict[tuple[int, int, int], int] = {}  # (configuration, host, resource) -> window key
    windows: list[Window] = []
    for c_index, config in enumerate(configs):
        for run_id, start, end in config.windows:
            for host in runs[run_id].hosts.all():
                for r_index in range(len(RESOURCES)):
                    for sid in series.get((host.pk, r_index), []):
                        number = keys.setdefault((c_index, host.pk, r_index), len(keys))
                        windows.append(Window(number, sid, start, end))
    stats = window_stats(windows)
    hosts = {h.pk: h for run in runs.values() for h in run.hosts.all()}
    result = []
    for (c_index, host_id, r_index), number in keys.items():
        found = stats.get(number)
        if found is None:
            continue
        config = configs[c_index]
        result.append(
            {
                "configuration": c_index,
                "technique": config.technique,
                "dataset": config.dataset,
                "options": config.options,
                "host": hosts[host_id].name,
                "role": hosts[host_id].role,
                "resource": RESOURCES[r_index][0],
                "avg": found.average,
                "max": found.maximum,
                "samples": found.samples,
            }
        )
    return result

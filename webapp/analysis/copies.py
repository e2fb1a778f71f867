"""Copy and migration comparison: time to complete and resource use per technique and data set.

A copy run is a run whose scenario (or the run's own attributes) names a
``technique`` -- robocopy, Storage Replica, Copy-Item ... -- or that a
robocopy log produced. Runs with the same technique, data set and options
form one configuration; its durations (measurements named *time to
complete*, *elapsed* or *duration* in a time unit) give mean, spread and the
number of rounds.

Several hosts' copies in one run (a robocopy log from each of several
machines, uploaded into one run) ran at once, so one round of the run is one
copy of them all (``analysis.hosts``): its duration is the wall clock from
the first host's start to the last host's end; bytes, files and other counts
are summed; robocopy's speed is the bytes all hosts copied over that wall
clock; other figures combine by what they are (a mean of the hosts' own).
Each configuration and figure says how (``combined``), from how many
``hosts``, and keeps each host's own mean (``per_host``: ``[name, mean]``).

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

from webapp.analysis.hosts import combine, host_rows, kind
from webapp.analysis.stats import mean, stdev
from webapp.analysis.windows import Window, window_stats
from webapp.core.models import Campaign, Host, Run
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
    by_host: dict[int, list[float]] = field(
        default_factory=lambda: defaultdict(list)
    )  # each host's own seconds
    combined: set[str] = field(default_factory=set)
    names: dict[int, str] = field(default_factory=dict)

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
            "hosts": len(self.by_host),
            "combined": ", ".join(sorted(self.combined)),
            "per_host": [list(pair) for pair in host_rows(self.by_host, self.names)],
        }


@dataclass
class Copy:
    """One copy (a run's repetition) as each of its hosts recorded it."""

    durations: dict[int, list[tuple[datetime, float]]] = field(default_factory=lambda: defaultdict(list))
    figures: dict[tuple[str, str, str], dict[int, float]] = field(default_factory=lambda: defaultdict(dict))

    def span(self) -> tuple[datetime, datetime]:
        """First start to last end over every host's copy: the wall clock of copies that ran at once."""
        starts = [t for found in self.durations.values() for t, _ in found]
        ends = [t + timedelta(seconds=s) for found in self.durations.values() for t, s in found]
        return min(starts), max(ends)


def _dim(run: Run, name: str) -> str:
    return str(run.scenario.dims.get(name) or (run.attributes or {}).get(name) or "")


def copy_runs(campaign: Campaign) -> list[Run]:
    runs = Run.objects.filter(campaign=campaign).select_related("scenario").prefetch_related("hosts")
    return [r for r in runs if _dim(r, "technique") or r.tool.lower() == "robocopy"]


def _figure(metric: str, unit: str, by_host: dict[int, float], copy: Copy) -> tuple[float, str]:
    """A copy's figure from its hosts: robocopy's speed is the bytes all hosts copied over the wall clock."""
    if len(by_host) > 1 and kind(metric, unit) == "rate" and copy.durations:
        copied = copy.figures.get(("bytes.copied", "", "B"), {})
        start, end = copy.span()
        wall = (end - start).total_seconds()
        if wall > 0 and set(by_host) <= set(copied):
            per_second = sum(copied[h] for h in by_host) / wall
            scale = {"b/s": 1.0, "mib/min": 60.0 / 2**20}.get(unit.strip().lower())
            if scale is not None:
                return per_second * scale, "bytes copied / wall clock"
    return combine(kind(metric, unit), by_host)


def copy_comparison(campaign: Campaign) -> dict[str, Any]:
    """``{configurations, resources, figures}`` for the copy runs of a campaign."""
    runs = {r.pk: r for r in copy_runs(campaign)}
    configs: dict[tuple[str, str, str], Configuration] = {}
    copies: dict[tuple[tuple[str, str, str], int, int], Copy] = {}  # (configuration, run, repetition)
    rows: list[tuple[int, int, int, datetime, str, str, float, str]] = []
    if runs:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT run_id, host_id, repetition, time, metric, subject, value, unit FROM measurement"
                " WHERE run_id = ANY(%s) ORDER BY run_id, repetition, time, metric, host_id",
                [list(runs)],
            )
            rows = cursor.fetchall()
    names = dict(Host.objects.filter(pk__in={row[1] for row in rows}).values_list("pk", "name"))
    for run_id, host_id, repetition, time, metric, subject, value, unit in rows:
        run = runs[run_id]
        technique = _dim(run, "technique") or run.tool or "(unknown)"
        key = (technique, _dim(run, "dataset") or _dim(run, "source"), _dim(run, "options"))
        if key not in configs:
            configs[key] = Configuration(*key, names=names)
        if run_id not in configs[key].runs:
            configs[key].runs.append(run_id)
        copy = copies.setdefault((key, run_id, repetition), Copy())
        scale = _SECONDS.get(unit.strip().lower())
        if DURATION.search(metric) and scale is not None:
            copy.durations[host_id].append((time, value * scale))
        else:
            copy.figures[(metric, subject, unit)][host_id] = value
    figures: dict[tuple[tuple[str, str, str], str, str, str], list[float]] = defaultdict(list)
    figure_hosts: dict[tuple[tuple[str, str, str], str, str, str], dict[int, list[float]]] = defaultdict(
        lambda: defaultdict(list)
    )
    figure_how: dict[tuple[tuple[str, str, str], str, str, str], set[str]] = defaultdict(set)
    for (key, run_id, _), copy in copies.items():
        config = configs[key]
        for host_id, found in copy.durations.items():
            config.by_host[host_id].extend(seconds for _, seconds in found)
        if len(copy.durations) > 1:
            start, end = copy.span()
            config.seconds.append((end - start).total_seconds())
            config.windows.append((run_id, start, end))
            config.combined.add("wall clock, first start to last end")
        for found in copy.durations.values():
            for time, seconds in found if len(copy.durations) == 1 else ():
                config.seconds.append(seconds)
                config.windows.append((run_id, time, time + timedelta(seconds=seconds)))
        for (metric, subject, unit), by_host in copy.figures.items():
            value, how = _figure(metric, unit, by_host, copy)
            figures[(key, metric, subject, unit)].append(value)
            for host_id, own in by_host.items():
                figure_hosts[(key, metric, subject, unit)][host_id].append(own)
            if how:
                figure_how[(key, metric, subject, unit)].add(how)
    ordered = list(configs.values())
    number = {key: index for index, key in enumerate(configs)}
    return {
        "configurations": [c.as_dict() for c in ordered],
        "resources": _resources(ordered, runs),
        "figures": [
            {
                "configuration": number[k],
                "metric": m,
                "subject": s,
                "unit": u,
                "mean": mean(v),
                "n": len(v),
                "hosts": len(figure_hosts[(k, m, s, u)]),
                "combined": ", ".join(sorted(figure_how[(k, m, s, u)])),
                "per_host": [list(pair) for pair in host_rows(figure_hosts[(k, m, s, u)], names)],
            }
            for (k, m, s, u), v in sorted(
                figures.items(), key=lambda item: (number[item[0][0]], *item[0][1:])
            )
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

"""The capacity method: per scenario and load step, counter statistics and the saturation point.

For every run of the campaign with a load-step timeline, the samples of the
chosen counter on the run's *server* hosts inside each step's window (trimmed
by ``trim`` percent at each end to drop ramp-up and ramp-down) give the
average, maximum and 95th percentile. Repeated runs of one scenario are
combined per user count: the mean of the runs' statistics, with the spread
(min..max) across runs.

Average, maximum and sample counts come from the one-minute rollups plus the
raw samples of each window's partial edge minutes (``analysis.windows``):
exact, and their cost follows the number of windows, not the samples inside
them. The 95th percentile needs every raw sample of every window, so it is
computed only when it is the chosen statistic (``p95`` is null otherwise).

Around the point: its interval (``analysis.uncertainty``), an extrapolation
when no step crosses (``analysis.extrapolate``), and the users before each
resource's limit (``analysis.limits``), whose step averages come from the
same single window query as the chosen counter's, and the users before each
timing limit (user experience, ``analysis.ux_capacity``).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from django.db import connection

from webapp.analysis.counters import CounterRef
from webapp.analysis.extrapolate import Extrapolation, extrapolate
from webapp.analysis.limits import (
    COMPANIONS,
    ResourceUsers,
    binding,
    by_users,
    campaign_limits,
    extra_series,
    limiting,
    scenario_limits,
    watched_series,
)
from webapp.analysis.saturation import Saturation, StepStat, saturation_point
from webapp.analysis.uncertainty import RunCurve, Uncertainty, saturation_interval
from webapp.analysis.ux_capacity import timing_limits
from webapp.analysis.window_percentiles import window_p95
from webapp.analysis.windows import Window, step_window, window_stats
from webapp.core.models import Campaign, Host, Run
from webapp.timeseries.models import CounterSeries

Stat = Literal["avg", "max", "p95"]


@dataclass
class StepRow:
    users: int
    avg: float | None
    max: float | None
    p95: float | None
    samples: int
    runs: int
    spread: dict[str, list[float]] = field(default_factory=dict)  # stat -> [min, max] across runs
    overloaded: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "users": self.users,
            "avg": self.avg,
            "max": self.max,
            "p95": self.p95,
            "samples": self.samples,
            "runs": self.runs,
            "spread": self.spread,
            "overloaded": self.overloaded,
        }


@dataclass
class ScenarioCapacity:
    scenario_id: int
    label: str
    dims: dict[str, str]
    steps: list[StepRow]
    saturation: Saturation
    curves: list[RunCurve] = field(default_factory=list)  # one per run
    uncertainty: Uncertainty | None = None
    extrapolation: Extrapolation | None = None
    limits: list[ResourceUsers] = field(default_factory=list)
    companions: dict[str, dict[int, float]] = field(default_factory=dict)  # e.g. IOPS per user count
    run_ids: list[int] = field(default_factory=list)
    counter: str = ""  # the chosen counter's path
    stat: Stat = "avg"
    host: str = ""  # the server the figures are from (of several in a run: the first to saturate)
    per_host: list[ScenarioCapacity] = field(default_factory=list)  # every server's own, when several

    @property
    def interval(self) -> tuple[float, float] | None:
        return self.uncertainty.interval if self.uncertainty else None

    def as_dict(self) -> dict[str, Any]:
        head, runner_up = limiting(self.limits)
        return {
            "scenario": self.scenario_id,
            "label": self.label,
            "dims": self.dims,
            "saturation_users": self.saturation.users,
            "bound": self.saturation.bound,
            "saturation_text": self.saturation.text,
            "steps_used": len(self.steps),
            "samples_used": sum(s.samples for s in self.steps),
            "steps": [s.as_dict() for s in self.steps],
            "interval": list(self.interval) if self.interval else None,
            "interval_method": self.uncertainty.method if self.uncertainty else "none",
            "runs_used": len(self.curves),
            "run_ids": self.run_ids,
            "extrapolation": self.extrapolation.as_dict() if self.extrapolation else None,
            "limiting": head,
            "runner_up": runner_up,
            "limits": [r.as_dict() for r in self.limits],
            "binding": self.binding(),
            "host": self.host,
            "per_host": [
                {
                    "host": h.host,
                    "saturation_users": h.saturation.users,
                    "bound": h.saturation.bound,
                    "saturation_text": h.saturation.text,
                    "steps": [s.as_dict() for s in h.steps],
                }
                for h in self.per_host
            ],
        }

    def binding(self) -> dict[str, Any]:
        """The lowest of the chosen counter's point and every limit reached (``limits.binding``)."""
        return binding(self.limits, self.saturation, self.counter, self.interval, self.host)


def _overloaded_steps(runs: list[Run]) -> set[int]:
    """Steps during which an FSCT result says the server was overloaded."""
    if not runs:
        return set()
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT DISTINCT st.id FROM core_runstep st
            JOIN measurement m ON m.run_id = st.run_id
            WHERE st.run_id = ANY(%s) AND m.metric IN ('fsct.overload_pct', 'fsct.overloaded') AND m.value > 0
              AND m.time >= st.started_at AND (st.ended_at IS NULL OR m.time < st.ended_at)
            """,
            [[r.pk for r in runs]],
        )
        return {row[0] for row in cursor.fetchall()}


def _server_series(runs: list[Run], counter: CounterRef) -> dict[int, dict[int, list[int]]]:
    """Run id -> server host id -> the ids of the counter's series on it (one query)."""
    servers = {run.pk: [h.pk for h in run.hosts.all() if h.role == Host.Role.SERVER] for run in runs}
    by_host: dict[int, list[int]] = defaultdict(list)
    found = CounterSeries.objects.filter(
        host_id__in={h for hosts in servers.values() for h in hosts},
        object=counter.object,
        instance=counter.instance,
        counter=counter.counter,
    ).values_list("host_id", "pk")
    for host_id, series_id in found:
        by_host[host_id].append(series_id)
    return {run_id: {h: by_host[h] for h in hosts if by_host[h]} for run_id, hosts in servers.items()}


def several_servers(runs: list[Run], series_of: Mapping[int, Mapping[int, Any]]) -> bool:
    """Whether a run of these held more than one server with the counter: then each server is its own curve."""
    return any(len(series_of.get(run.pk, {})) > 1 for run in runs)


def _deciding(results: list[ScenarioCapacity]) -> ScenarioCapacity:
    """The server that saturates first: already past at the first step, else the fewest users, else the most
    loaded at the highest step."""

    def order(result: ScenarioCapacity) -> tuple[int, float, str]:
        sat = result.saturation
        if sat.bound == "below_first_step":
            return 0, 0.0, result.host
        if sat.users is not None and sat.bound in ("interpolated", "extrapolated"):
            return 1, sat.users, result.host
        last = next((r for r in reversed(result.steps) if getattr(r, result.stat) is not None), None)
        return 2, -(getattr(last, result.stat) if last else -math.inf), result.host

    return min(results, key=order)


def campaign_capacity(
    campaign: Campaign,
    counter: CounterRef,
    stat: Stat,
    threshold: float,
    trim: float = 10.0,
    with_limits: bool = True,
) -> list[ScenarioCapacity]:
    runs = list(
        Run.objects.filter(campaign=campaign, steps__isnull=False)
        .distinct()
        .select_related("scenario")
        .prefetch_related("steps", "hosts")
        .order_by("scenario_id", "name")
    )
    series_of = _server_series(runs, counter)
    limits = [*campaign_limits(campaign), *COMPANIONS] if with_limits else []
    watched = watched_series(runs, limits) if limits else {}
    windows: list[Window] = []
    # The chosen counter's windows get positive keys, one per step and server; limit series get
    # negative keys: one query serves both.
    keys: dict[int, tuple[int, int]] = {}  # key -> (step, server host)
    extra_keys: dict[int, tuple[int, int]] = {}
    shared: list[
        tuple[int, int, int]
    ] = []  # (key, step, series) a limit reads from the chosen counter's windows
    for run in runs:
        extra = extra_series(watched.get(run.pk, []))
        reused = {sids[0] for sids in series_of[run.pk].values() if len(sids) == 1 and sids[0] in extra}
        for step in run.steps.all():
            window = step_window(step, trim)
            if window is None:
                continue
            for host_id, sids in series_of[run.pk].items():
                keys[len(keys) + 1] = (step.pk, host_id)
                windows.extend(Window(len(keys), sid, window[0], window[1]) for sid in sids)
                shared.extend((len(keys), step.pk, sid) for sid in sids if sid in reused)
            for sid in sorted(extra - reused):
                extra_keys[-(len(extra_keys) + 1)] = (step.pk, sid)
                windows.append(Window(-len(extra_keys), sid, window[0], window[1]))
    found = window_stats(windows)
    p95 = window_p95([w for w in windows if w.key > 0]) if stat == "p95" else {}
    stats: dict[int, dict[int, tuple[int, float, float, float]]] = defaultdict(
        dict
    )  # step -> server -> stats
    for key, got in found.items():
        if key > 0:
            step_pk, host_id = keys[key]
            stats[step_pk][host_id] = (got.samples, got.average, got.maximum, p95.get(key, float("nan")))
    averages = {extra_keys[key]: s.average for key, s in found.items() if key < 0}
    averages.update({(step, sid): found[key].average for key, step, sid in shared if key in found})
    overloaded = _overloaded_steps(runs)
    by_timing = timing_limits(runs, limits)

    by_scenario: dict[int, list[Run]] = defaultdict(list)
    for run in runs:
        by_scenario[run.scenario_id].append(run)
    names = dict(
        Host.objects.filter(pk__in={h for on in series_of.values() for h in on}).values_list("pk", "name")
    )
    results = []
    for runs_of_scenario in by_scenario.values():
        scenario = runs_of_scenario[0].scenario
        split = several_servers(runs_of_scenario, series_of)
        servers = sorted({h for run in runs_of_scenario for h in series_of[run.pk]}) if split else [None]
        found_per_server = []
        for server in servers:
            result = _scenario_on(scenario, runs_of_scenario, stats, overloaded, server, stat, threshold)
            on = (
                [server] if server is not None else {h for run in runs_of_scenario for h in series_of[run.pk]}
            )
            result.host = ", ".join(sorted(names[h] for h in on))
            found_per_server.append(result)
        result = _deciding(found_per_server) if split else found_per_server[0]
        if split:
            result.per_host = found_per_server
        result.run_ids = [run.pk for run in runs_of_scenario]
        result.counter = counter.path
        result.limits, result.companions = scenario_limits(
            runs_of_scenario, watched, averages, overloaded, limits, split
        )
        result.limits = by_users([*result.limits, *by_timing.get(scenario.pk, [])])
        results.append(result)
    return results


def _scenario_on(
    scenario: Any,
    runs: list[Run],
    stats: Mapping[int, Mapping[int, tuple[int, float, float, float]]],
    overloaded: set[int],
    server: int | None,
    stat: Stat,
    threshold: float,
) -> ScenarioCapacity:
    """The capacity of one scenario from one server's windows (``server``), or from every server's
    when each run has one (``None``: repeated runs, wherever they ran, are averaged per user count)."""
    per_users: dict[int, list[tuple[int, float, float, float, bool]]] = defaultdict(list)
    curves: list[RunCurve] = []
    for run in runs:
        curve: RunCurve = {}
        for step in run.steps.all():
            on = stats.get(step.pk, {})
            got = next(iter(on.values()), None) if server is None else on.get(server)
            if got is None and step.pk not in overloaded:
                continue
            n, avg, mx, q95 = got if got is not None else (0, float("nan"), float("nan"), float("nan"))
            per_users[step.users].append((n, avg, mx, q95, step.pk in overloaded))
            value = {"avg": avg, "max": mx, "p95": q95}[stat]
            curve[step.users] = (None if n == 0 or math.isnan(value) else value, step.pk in overloaded)
        if curve:
            curves.append(curve)
    rows = [_combine(users, values) for users, values in sorted(per_users.items())]
    result = _assess(scenario.pk, scenario.label, scenario.dims, rows, curves, stat, threshold)
    result.stat = stat
    return result


def _assess(
    scenario_id: int,
    label: str,
    dims: dict[str, str],
    rows: list[StepRow],
    curves: list[RunCurve],
    stat: Stat,
    threshold: float,
) -> ScenarioCapacity:
    """The saturation point, its interval and, when no step crosses, the extrapolation."""
    points = [StepStat(r.users, getattr(r, stat), r.overloaded) for r in rows]
    saturation = saturation_point(points, threshold)
    result = ScenarioCapacity(scenario_id, label, dims, rows, saturation, curves)
    if saturation.bound == "not_reached":
        measured = [(float(p.users), p.value) for p in points if p.value is not None]
        found = extrapolate([x for x, _ in measured], [y for _, y in measured], threshold)
        if found is not None:
            result.extrapolation = found
            result.saturation = Saturation(
                found.users, "extrapolated", saturation.first_users, saturation.last_users
            )
            result.uncertainty = Uncertainty(found.interval, "prediction", len(curves), [])
            return result
    result.uncertainty = saturation_interval(curves, points, saturation, threshold)
    return result


def _combine(users: int, values: list[tuple[int, float, float, float, bool]]) -> StepRow:
    """One row per user count: the mean of the runs' statistics and their spread."""
    measured = [v for v in values if v[0] > 0]
    row = StepRow(
        users=users, avg=None, max=None, p95=None, samples=sum(v[0] for v in values), runs=len(values)
    )
    row.overloaded = any(v[4] for v in values)
    for index, name in ((1, "avg"), (2, "max"), (3, "p95")):
        series = [float(v[index]) for v in measured if not math.isnan(v[index])]
        if series:
            setattr(row, name, sum(series) / len(series))
            row.spread[name] = [min(series), max(series)]
    return row

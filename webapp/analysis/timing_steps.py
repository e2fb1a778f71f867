"""Timings on the user axis: which load step's users each timing result belongs to.

A timing (a logon, an application launch, an event-log duration such as
``profile.load_ms``, FSCT's ``fsct.response_ms``) belongs to the load step of
its run whose window ``[started_at, ended_at)`` contains its time, whichever
of the run's hosts sent it: many clients timing logons into one run is the
normal case. A timing that carries its own ``users`` (the active sessions when
it was measured: the timings JSON/CSV ``users`` field, ``headroom-agent time
--users``) is placed at that user count instead, step or no step. Windows are
not trimmed: a logon during the ramp to a step is that step's experience.
Timings outside every window and without ``users`` are left out. A timing is
named by its metric, with its subject in brackets when it has one
(``fsct.response_ms [OpenFile]``, ``gpo.processing_ms [user]``): one curve never
pools unlike operations.

The placing is done once per run and kept (``timeseries.timing_summary``):
per unit -- one client's one repetition in one run -- and user count its
count and sum, per scenario and user count the exact median and 95th
percentile, per unit its smallest timings. This module reads those rows
(refreshing stale runs first), so its cost follows runs, steps and units,
not the number of timings. Two cases read raw timings, exactly as before:
``lowest:N`` beyond the smallest timings kept per unit, and percentiles of a
user count some runs of the scenario outside ``runs`` also reach.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import connection
from django.db.backends.utils import CursorWrapper

from webapp.core.models import Run
from webapp.timeseries import timing_summary
from webapp.timeseries.timing_summary import LOWEST_KEPT, PLACED, TIMING_NAME

# (run, host, repetition): one client's series of one repetition across the steps.
Unit = tuple[int, int, int]

_UNITS = """
    SELECT run_id, users, host_id, repetition, n, total FROM timing_unit_summary
    WHERE metric = %s AND run_id = ANY(%s) ORDER BY run_id, host_id, repetition, users
"""
_PERCENTILES = "SELECT scenario_id, users, n, p50, p95 FROM timing_step_percentile WHERE metric = %s AND scenario_id = ANY(%s)"
_KEPT_LOWEST = """
    SELECT run_id, host_id, repetition, lowest[1:%s] FROM timing_unit_lowest
    WHERE metric = %s AND run_id = ANY(%s)
"""
_RAW_PERCENTILES = (
    PLACED.format(only=f"AND {TIMING_NAME} = %(metric)s")
    + """
    SELECT scenario_id, users, percentile_cont(0.5) WITHIN GROUP (ORDER BY value),
           percentile_cont(0.95) WITHIN GROUP (ORDER BY value)
    FROM placed WHERE users IS NOT NULL GROUP BY scenario_id, users
    """
)
# The ``lowest`` smallest timings of each unit: enough to find a scenario's N lowest in any resample.
_RAW_LOWEST = (
    PLACED.format(only=f"AND {TIMING_NAME} = %(metric)s")
    + """
    SELECT run_id, host_id, repetition, (array_agg(value ORDER BY value))[1:%(lowest)s]
    FROM placed WHERE users IS NOT NULL
    GROUP BY run_id, host_id, repetition
    """
)


@dataclass(frozen=True)
class StepTimings:
    """One user count of one scenario: every timing placed there, pooled across hosts and runs."""

    users: int
    mean: float
    p50: float
    p95: float
    n: int
    hosts: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "users": self.users,
            "mean": self.mean,
            "p50": self.p50,
            "p95": self.p95,
            "n": self.n,
            "hosts": self.hosts,
        }


@dataclass
class ScenarioTimings:
    steps: list[StepTimings] = field(default_factory=list)  # by users
    # unit -> users -> (count, sum): what a resample of units is rebuilt from
    units: dict[Unit, dict[int, tuple[int, float]]] = field(default_factory=dict)
    lowest: dict[Unit, list[float]] = field(default_factory=dict)  # each unit's smallest timings


def timing_steps(runs: Sequence[Run], metric: str, lowest: int = 0) -> dict[int, ScenarioTimings]:
    """Scenario id -> its timings of ``metric`` per user count (and, with ``lowest``, each unit's smallest)."""
    found: dict[int, ScenarioTimings] = defaultdict(ScenarioTimings)
    if not runs:
        return found
    scenario_of = {r.pk: r.scenario_id for r in runs}
    ids = sorted(scenario_of)
    timing_summary.ensure_fresh(ids)
    # (scenario, users) -> [count, sum, hosts]
    pooled: dict[tuple[int, int], tuple[list[float], set[int]]] = {}
    with connection.cursor() as cursor:
        cursor.execute(_UNITS, [metric, ids])
        for run, users, host, repetition, n, total in cursor.fetchall():
            scenario = scenario_of[run]
            found[scenario].units.setdefault((run, host, repetition), {})[users] = (n, total)
            sums, hosts = pooled.setdefault((scenario, users), ([0, 0.0], set()))
            sums[0] += n
            sums[1] += total
            hosts.add(host)
        percentiles = _percentiles(cursor, metric, runs, pooled)
        if lowest:
            if lowest <= LOWEST_KEPT:
                cursor.execute(_KEPT_LOWEST, [lowest, metric, ids])
            else:
                cursor.execute(_RAW_LOWEST, {"runs": ids, "metric": metric, "lowest": lowest})
            for run, host, repetition, values in cursor.fetchall():
                found[scenario_of[run]].lowest[(run, host, repetition)] = list(values)
    for (scenario, users), ((n, total), hosts) in sorted(pooled.items()):
        p50, p95 = percentiles[(scenario, users)]
        found[scenario].steps.append(StepTimings(users, total / n, p50, p95, int(n), len(hosts)))
    return found


def _percentiles(
    cursor: CursorWrapper,
    metric: str,
    runs: Sequence[Run],
    pooled: dict[tuple[int, int], tuple[list[float], set[int]]],
) -> dict[tuple[int, int], tuple[float, float]]:
    """(scenario, users) -> (p50, p95): kept per scenario, pooling every run of it; when a run left out
    of ``runs`` reaches the same user count, the counts differ and those are read from the raw timings."""
    scenarios = sorted({scenario for scenario, _ in pooled})
    cursor.execute(_PERCENTILES, [metric, scenarios])
    found = {}
    for scenario, users, n, p50, p95 in cursor.fetchall():
        mine = pooled.get((scenario, users))
        if mine is not None and mine[0][0] == n:
            found[(scenario, users)] = (p50, p95)
    missing = {scenario for (scenario, users) in pooled if (scenario, users) not in found}
    if missing:
        ids = sorted(r.pk for r in runs if r.scenario_id in missing)
        cursor.execute(_RAW_PERCENTILES, {"runs": ids, "metric": metric})
        for scenario, users, p50, p95 in cursor.fetchall():
            found.setdefault((scenario, users), (p50, p95))
    return found


def placed_timing_names(campaign_id: int) -> list[str]:
    """The names of the campaign's timings (values in ms) that land on the user axis: inside a load step's
    window, or carrying their own ``users``. What the capacity page and share reports offer as ``timing``."""
    runs = list(Run.objects.filter(campaign_id=campaign_id).values_list("pk", flat=True))
    return timing_summary.placed_names(runs)

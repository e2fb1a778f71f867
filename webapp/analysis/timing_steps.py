"""Timings on the user axis: which load step's users each timing result belongs to.

A timing (a logon, an application launch, an event-log duration such as
``profile.load_ms``, FSCT's ``fsct.response_ms``) belongs to the load step of
its run whose window ``[started_at, ended_at)`` contains its time, whichever
of the run's hosts sent it: many clients timing logons into one run is the
normal case. A timing that carries its own ``users`` (the active sessions when
it was measured: the timings JSON/CSV ``users`` field, ``headroom-agent time
--users``) is placed at that user count instead, step or no step. Windows are
not trimmed: a logon during the ramp to a step is that step's experience.
Timings outside every window and without ``users`` are left out.

One query places and aggregates everything (raw SQL because it pays: the
step is found by ``width_bucket`` over each run's ordered step starts, a
binary search instead of a join against every step): per scenario and user
count the pooled mean, median, 95th percentile, count and number of hosts,
and per *unit* -- one client's one repetition in one run -- its count and sum
per user count, which the interval resamples (``analysis.ux_capacity``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import connection

from webapp.core.models import Run

# (run, host, repetition): one client's series of one repetition across the steps.
Unit = tuple[int, int, int]

_PLACED = """
    WITH steps AS (
        SELECT run_id,
               array_agg(started_at ORDER BY started_at) AS starts,
               array_agg(COALESCE(ended_at, 'infinity') ORDER BY started_at) AS ends,
               array_agg(users ORDER BY started_at) AS users
        FROM core_runstep WHERE run_id = ANY(%(runs)s) GROUP BY run_id
    ), scenario AS (
        SELECT * FROM unnest(%(runs)s::bigint[], %(scenarios)s::bigint[]) AS r(run_id, scenario_id)
    ), placed AS (
        SELECT r.scenario_id, m.run_id, m.host_id, m.repetition, m.value,
               COALESCE(m.users, CASE WHEN m.time < s.ends[width_bucket(m.time, s.starts)]
                                      THEN s.users[width_bucket(m.time, s.starts)] END) AS users
        FROM measurement m
        JOIN scenario r ON r.run_id = m.run_id
        LEFT JOIN steps s ON s.run_id = m.run_id
        WHERE m.run_id = ANY(%(runs)s) AND m.metric = %(metric)s
    )
"""

_AGGREGATE = (
    _PLACED
    + """
    SELECT scenario_id, users, run_id, host_id, repetition, count(*), sum(value),
           percentile_cont(0.5) WITHIN GROUP (ORDER BY value),
           percentile_cont(0.95) WITHIN GROUP (ORDER BY value),
           GROUPING(run_id)
    FROM placed WHERE users IS NOT NULL
    GROUP BY GROUPING SETS ((scenario_id, users), (scenario_id, users, run_id, host_id, repetition))
    """
)

# The ``lowest`` smallest timings of each unit: enough to find a scenario's N lowest in any resample.
_LOWEST = (
    _PLACED
    + """
    SELECT scenario_id, run_id, host_id, repetition, (array_agg(value ORDER BY value))[1:%(lowest)s]
    FROM placed WHERE users IS NOT NULL
    GROUP BY scenario_id, run_id, host_id, repetition
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
    params: dict[str, Any] = {
        "runs": [r.pk for r in runs],
        "scenarios": [r.scenario_id for r in runs],
        "metric": metric,
        "lowest": lowest,
    }
    hosts: dict[tuple[int, int], set[int]] = defaultdict(set)
    rows: list[tuple[int, int, int, float, float, float]] = []
    with connection.cursor() as cursor:
        cursor.execute(_AGGREGATE, params)
        for scenario, users, run, host, repetition, n, total, p50, p95, whole in cursor.fetchall():
            if whole:
                rows.append((scenario, users, n, total, p50, p95))
                continue
            found[scenario].units.setdefault((run, host, repetition), {})[users] = (n, total)
            hosts[(scenario, users)].add(host)
        if lowest:
            cursor.execute(_LOWEST, params)
            for scenario, run, host, repetition, values in cursor.fetchall():
                found[scenario].lowest[(run, host, repetition)] = list(values)
    for scenario, users, n, total, p50, p95 in sorted(rows):
        step = StepTimings(users, total / n, p50, p95, n, len(hosts[(scenario, users)]))
        found[scenario].steps.append(step)
    return found


_NAMES = """
    SELECT DISTINCT m.metric FROM measurement m JOIN core_run r ON r.id = m.run_id
    WHERE r.campaign_id = %s AND m.unit = 'ms' AND (
        m.users IS NOT NULL OR EXISTS (
            SELECT 1 FROM core_runstep s WHERE s.run_id = m.run_id AND m.time >= s.started_at
            AND m.time < COALESCE(s.ended_at, 'infinity')))
    ORDER BY 1
"""


def placed_timing_names(campaign_id: int) -> list[str]:
    """The names of the campaign's timings (values in ms) that land on the user axis: inside a load step's
    window, or carrying their own ``users``. What the capacity page and share reports offer as ``timing``."""
    with connection.cursor() as cursor:
        cursor.execute(_NAMES, [campaign_id])
        return [row[0] for row in cursor.fetchall()]

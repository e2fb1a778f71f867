"""Timings on the user axis, summarised per run so that reading them does not follow their number.

A timing (a logon, an application launch, an event-log duration, FSCT's
response time) belongs to the load step of its run whose window
``[started_at, ended_at)`` contains its time, whichever of the run's hosts
sent it; a timing that carries its own ``users`` belongs to that user count
instead, step or no step (``analysis.timing_steps`` says why). This module
places every measurement of a run that way once and keeps three tables:

* ``timing_unit_summary`` -- count and sum per (run, metric, users, host,
  repetition): one *unit* (a client's repetition in a run) at one user count,
  what the mean curve and its bootstrap are built from;
* ``timing_unit_lowest`` -- each unit's :data:`LOWEST_KEPT` smallest placed
  timings per metric, so ``lowest:N`` baselines up to that N need no raw row;
* ``timing_step_percentile`` -- the exact median and 95th percentile per
  (scenario, metric, users), every run of the scenario pooled (percentiles do
  not combine, so they are computed from the raw timings when a run of the
  scenario is refreshed, for the metrics that run has).

A run's summary is stale when the loader marked it (``timing_dirty``: its
timings were loaded, re-parsed or deleted), when its load steps differ from
the digest stored in ``timing_summary_run`` (steps change through several
paths: the steps API, an FSCT file, an upload's step, an archive), when it
moved to another scenario, or when it was never summarised. A worker task
refreshes marked runs after each load; a reader refreshes whatever is still
stale first (:func:`ensure_fresh`), so answers are never stale. Refreshes
are serialised by an advisory lock and re-check staleness under it.

Raw SQL because it pays: one statement places and aggregates a run's
timings (``width_bucket`` over its ordered step starts), and the read is
one index range per metric.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from django.db import connection, transaction
from django.db.backends.utils import CursorWrapper

from webapp.timeseries.models import TimingDirty

LOWEST_KEPT = 1000
_ADVISORY_LOCK = 0x48525453  # "HRTS": serialises timing-summary refreshes

# A timing's name: its metric, and its subject in brackets when it has one ("fsct.response_ms [OpenFile]",
# "gpo.processing_ms [user]", "logon.cse_ms [Folder Redirection]"), so that the response times of unlike
# operations, or policy runs of users and computers, are never pooled into one curve.
TIMING_NAME = "(m.metric || CASE WHEN m.subject = '' THEN '' ELSE ' [' || m.subject || ']' END)"

# Each run's ordered step starts, ends and users; a measurement is placed by binary search.
_STEPS = """
    steps AS (
        SELECT run_id,
               array_agg(started_at ORDER BY started_at) AS starts,
               array_agg(COALESCE(ended_at, 'infinity') ORDER BY started_at) AS ends,
               array_agg(users ORDER BY started_at) AS users
        FROM core_runstep WHERE run_id = ANY(%(runs)s) GROUP BY run_id
    )
"""

PLACED = (
    "WITH"
    + _STEPS
    + """, placed AS (
        SELECT r.scenario_id, m.run_id, {name} AS metric, m.host_id, m.repetition, m.value,
               COALESCE(m.users, CASE WHEN m.time < s.ends[width_bucket(m.time, s.starts)]
                                      THEN s.users[width_bucket(m.time, s.starts)] END) AS users
        FROM measurement m
        JOIN core_run r ON r.id = m.run_id
        LEFT JOIN steps s ON s.run_id = m.run_id
        WHERE m.run_id = ANY(%(runs)s) {only}
    )
""".replace("{name}", TIMING_NAME)
)

_UNITS = (
    PLACED.format(only="")
    + """
    INSERT INTO timing_unit_summary (run_id, metric, users, host_id, repetition, n, total)
    SELECT run_id, metric, users, host_id, repetition, count(*), sum(value)
    FROM placed WHERE users IS NOT NULL
    GROUP BY run_id, metric, users, host_id, repetition
    """
)

_LOWEST = (
    PLACED.format(only="")
    + """
    INSERT INTO timing_unit_lowest (run_id, metric, host_id, repetition, lowest)
    SELECT run_id, metric, host_id, repetition, (array_agg(value ORDER BY value))[1:%(kept)s]
    FROM placed WHERE users IS NOT NULL
    GROUP BY run_id, metric, host_id, repetition
    """
)

# The names of each run's timings in milliseconds that land on the user axis (what capacity offers).
_NAMES = (
    PLACED.format(only="AND m.unit = 'ms'")
    + """
    UPDATE timing_summary_run t SET names = n.names
    FROM (SELECT run_id, array_agg(DISTINCT metric ORDER BY metric) AS names
          FROM placed WHERE users IS NOT NULL GROUP BY run_id) n
    WHERE t.run_id = n.run_id
    """
)

_PERCENTILES = (
    PLACED.format(only=f"AND {TIMING_NAME} = ANY(%(metrics)s)")
    + """
    INSERT INTO timing_step_percentile (scenario_id, metric, users, n, p50, p95)
    SELECT scenario_id, metric, users, count(*),
           percentile_cont(0.5) WITHIN GROUP (ORDER BY value),
           percentile_cont(0.95) WITHIN GROUP (ORDER BY value)
    FROM placed WHERE users IS NOT NULL
    GROUP BY scenario_id, metric, users
    """
)

# A digest of a run's load steps: any change of users, start or end changes it. Epoch seconds, not
# timestamps as text, so that sessions in different time zones compute the same digest.
_DIGEST = """
    COALESCE((SELECT md5(array_agg(ROW(st.users, extract(epoch FROM st.started_at),
                                       extract(epoch FROM st.ended_at))
                                   ORDER BY st.started_at, st.users, st.id)::text)
              FROM core_runstep st WHERE st.run_id = r.id), '')
"""

_STALE = f"""
    SELECT r.id FROM core_run r
    LEFT JOIN timing_summary_run s ON s.run_id = r.id
    WHERE {{runs}}
      AND (s.run_id IS NULL OR s.scenario_id <> r.scenario_id OR s.steps <> {_DIGEST}
           OR EXISTS (SELECT 1 FROM timing_dirty d WHERE d.run_id = r.id))
"""

# Every stale run, and the marks and summaries of runs deleted since.
_PENDING = (
    _STALE.format(runs="true")
    + """
    UNION SELECT run_id FROM timing_dirty
    UNION SELECT run_id FROM timing_summary_run s WHERE NOT EXISTS (SELECT 1 FROM core_run r WHERE r.id = s.run_id)
"""
)


def mark_dirty(run_ids: Collection[int]) -> None:
    """Note that these runs' timings changed (in the caller's transaction)."""
    if run_ids:
        TimingDirty.objects.bulk_create(TimingDirty(run_id=run_id) for run_id in sorted(set(run_ids)))


def placed_names(run_ids: Collection[int]) -> list[str]:
    """The names of these runs' timings in ms on the user axis (inside a load step, or with their own
    ``users``), from the summary (refreshed first where stale)."""
    if not run_ids:
        return []
    ensure_fresh(run_ids)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT unnest(names) FROM timing_summary_run WHERE run_id = ANY(%s) ORDER BY 1",
            [sorted(set(run_ids))],
        )
        return [name for (name,) in cursor.fetchall() if name]


def stale(run_ids: Collection[int]) -> list[int]:
    """The runs of ``run_ids`` whose summary must be recomputed before it is read."""
    if not run_ids:
        return []
    with connection.cursor() as cursor:
        cursor.execute(_STALE.format(runs="r.id = ANY(%s)"), [sorted(set(run_ids))])
        return sorted(run_id for (run_id,) in cursor.fetchall())


def ensure_fresh(run_ids: Collection[int]) -> list[int]:
    """Refresh the stale runs of ``run_ids`` now (usually none); returns those refreshed."""
    if not stale(run_ids):
        return []
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_ADVISORY_LOCK])
        runs = stale(run_ids)  # another reader may have done it while this one waited
        _refresh(cursor, runs)
    return runs


def refresh(run_ids: Collection[int]) -> None:
    """Recompute the summary of ``run_ids`` (existing or deleted runs) and of their scenarios' steps."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_ADVISORY_LOCK])
        _refresh(cursor, sorted(set(run_ids)))


def refresh_pending(batch: int = 50) -> int:
    """The worker's pass: every stale run (marked, steps changed, never summarised), the marks of runs
    deleted since, and the rows of deleted runs and scenarios; ``batch`` runs per transaction.
    Returns how many runs it recomputed."""
    with connection.cursor() as cursor:
        cursor.execute(_PENDING)
        runs = sorted(run_id for (run_id,) in cursor.fetchall())
    for start in range(0, len(runs), batch):
        refresh(runs[start : start + batch])
    with connection.cursor() as cursor:
        cursor.execute(
            "DELETE FROM timing_step_percentile p "
            "WHERE NOT EXISTS (SELECT 1 FROM core_scenario c WHERE c.id = p.scenario_id)"
        )
    return len(runs)


def _refresh(cursor: CursorWrapper, runs: list[int]) -> None:
    """Recompute ``runs`` under the lock: their unit rows, their scenarios' percentiles, their state.

    The steps' digest and the dirty marks are read *before* the timings are, so a step or a load
    that commits during the refresh leaves the run stale (recomputed again), never wrongly fresh.
    """
    if not runs:
        return
    cursor.execute(f"SELECT r.id, r.scenario_id, {_DIGEST} FROM core_run r WHERE r.id = ANY(%s)", [runs])
    current = cursor.fetchall()
    cursor.execute("SELECT id FROM timing_dirty WHERE run_id = ANY(%s)", [runs])
    marks = [mark for (mark,) in cursor.fetchall()]
    cursor.execute(
        "SELECT scenario_id FROM timing_summary_run WHERE run_id = ANY(%s)"
        " UNION SELECT scenario_id FROM core_run WHERE id = ANY(%s)",
        [runs, runs],
    )
    scenarios = [scenario for (scenario,) in cursor.fetchall()]
    cursor.execute("SELECT DISTINCT metric FROM timing_unit_summary WHERE run_id = ANY(%s)", [runs])
    metrics = {metric for (metric,) in cursor.fetchall()}
    for table in ("timing_unit_summary", "timing_unit_lowest", "timing_summary_run"):
        cursor.execute(f"DELETE FROM {table} WHERE run_id = ANY(%s)", [runs])
    params: dict[str, Any] = {"runs": runs, "kept": LOWEST_KEPT}
    cursor.execute(_UNITS, params)
    cursor.execute(_LOWEST, params)
    cursor.execute("SELECT DISTINCT metric FROM timing_unit_summary WHERE run_id = ANY(%s)", [runs])
    metrics.update(metric for (metric,) in cursor.fetchall())
    if metrics:
        cursor.execute(
            "DELETE FROM timing_step_percentile WHERE scenario_id = ANY(%s) AND metric = ANY(%s)",
            [scenarios, sorted(metrics)],
        )
        cursor.execute("SELECT id FROM core_run WHERE scenario_id = ANY(%s)", [scenarios])
        pooled = [run_id for (run_id,) in cursor.fetchall()]
        cursor.execute(_PERCENTILES, {"runs": pooled, "metrics": sorted(metrics)})
    if current:
        cursor.execute(
            "INSERT INTO timing_summary_run (run_id, scenario_id, steps, names, refreshed_at) "
            "SELECT *, '{}', now() FROM unnest(%s::bigint[], %s::bigint[], %s::text[])",
            [[c[0] for c in current], [c[1] for c in current], [c[2] for c in current]],
        )
        cursor.execute(_NAMES, params)
    cursor.execute("DELETE FROM timing_dirty WHERE id = ANY(%s)", [marks])

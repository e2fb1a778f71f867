"""The 95th percentile of counter windows, computed from the raw samples once and then kept.

A percentile cannot be combined from the one-minute rollups, so
``capacity?stat=p95`` used to read every raw sample of every step window on
every call: its cost followed the number of samples. Each answer is now kept
in ``window_percentile``, keyed by the window and its series, and served from
there until samples inside the window change.

Exactness rests on the ``rollup_dirty`` list, which every writer of
``counter_sample`` (loader, re-parse, upload delete, retention) extends in the
transaction that changes the samples:

* a window touching a pending dirty range is computed from the raw samples
  and not kept (as ``windows.window_stats`` reads such a window raw);
* the worker drops every kept value whose window a dirty range touches, in
  the transaction that deletes those ranges (:func:`forget_dirty`);
* readers hold a shared advisory lock from their look at the dirty list to
  the commit of what they keep, and :func:`forget_dirty` the exclusive one,
  so a value computed before a load committed is kept before the drop that
  covers it, never after.

:func:`warm` computes the step windows of runs a load touched, so the first
``stat=p95`` call after a load does not pay for them (the worker runs it).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from django.db import connection, transaction

from webapp.analysis.windows import DirtyRanges, Window, short_query_cursor, step_window
from webapp.timeseries import samples

_LOCK = 0x48525035  # "HRP5": kept percentiles against the dropping of dirty ranges
DEFAULT_TRIM = 10.0  # percent cut off each end of a step (capacity's default)

_P95_SQL = f"""
    WITH w AS (
        SELECT * FROM unnest(%s::bigint[], %s::bigint[], %s::timestamptz[], %s::timestamptz[])
            AS w(key, series_id, lo, hi)
    )
    SELECT w.key, percentile_cont(0.95) WITHIN GROUP (ORDER BY s.value)
    FROM w CROSS JOIN LATERAL (
        SELECT value FROM {samples.of_series("w.series_id", "w.lo", "w.hi")} raw
        OFFSET 0  -- keeps the per-window range scan (else a hash join over the whole table)
    ) s
    GROUP BY w.key
"""


def digest(windows: Sequence[Window]) -> str:
    """What identifies one key's windows: their spans and series, in any order."""
    text = ";".join(sorted(f"{w.series_id}@{w.lo.isoformat()}/{w.hi.isoformat()}" for w in windows))
    return hashlib.md5(text.encode(), usedforsecurity=False).hexdigest()


def raw_p95(windows: Sequence[Window]) -> dict[int, float]:
    """The 95th percentile (linear interpolation, as ``percentile_cont``) of each key's raw samples."""
    if not windows:
        return {}
    params: list[list[Any]] = [
        [w.key for w in windows],
        [w.series_id for w in windows],
        [w.lo for w in windows],
        [w.hi for w in windows],
    ]
    with short_query_cursor() as cursor:
        cursor.execute(_P95_SQL, params)
        return {key: float(value) for key, value in cursor.fetchall()}


def window_p95(windows: Sequence[Window]) -> dict[int, float]:
    """The 95th percentile of each key's samples (keys without samples are absent): kept values, else raw."""
    if not windows:
        return {}
    by_key: dict[int, list[Window]] = defaultdict(list)
    for window in windows:
        by_key[window.key].append(window)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock_shared(%s)", [_LOCK])
        dirty = DirtyRanges.pending()
        keepable = {
            key: digest(ws) for key, ws in by_key.items() if not any(dirty.overlaps(w.lo, w.hi) for w in ws)
        }
        cursor.execute(
            "SELECT digest, value FROM window_percentile WHERE digest = ANY(%s)", [list(keepable.values())]
        )
        kept = dict(cursor.fetchall())
        found = {key: kept[d] for key, d in keepable.items() if d in kept}
        computed = raw_p95([w for key, ws in by_key.items() if key not in found for w in ws])
        fresh = [(key, d) for key, d in keepable.items() if key in computed and d not in kept]
        if fresh:
            cursor.execute(
                """
                INSERT INTO window_percentile (digest, lo, hi, series_ids, value)
                SELECT digest, lo, hi, series::bigint[], value
                FROM unnest(%s::text[], %s::timestamptz[], %s::timestamptz[], %s::text[], %s::float8[])
                    AS f(digest, lo, hi, series, value)
                ON CONFLICT (digest) DO NOTHING
                """,
                [
                    [d for _, d in fresh],
                    [min(w.lo for w in by_key[key]) for key, _ in fresh],
                    [max(w.hi for w in by_key[key]) for key, _ in fresh],
                    ["{" + ",".join(str(w.series_id) for w in by_key[key]) + "}" for key, _ in fresh],
                    [computed[key] for key, _ in fresh],
                ],
            )
    return {**computed, **found}


def forget_dirty(ranges: Iterable[tuple[datetime, datetime]], dirty_ids: Sequence[int]) -> int:
    """Drop every kept value whose window touches one of ``ranges``, and delete those dirty rows, at once.

    Called by the worker once the rollups of ``ranges`` are recomputed; returns the values dropped.
    """
    spans = DirtyRanges(list(ranges))
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_LOCK])
        dropped = 0
        for lo, hi in spans.spans():
            cursor.execute("DELETE FROM window_percentile WHERE lo < %s AND hi > %s", [hi, lo])
            dropped += cursor.rowcount
        cursor.execute("DELETE FROM rollup_dirty WHERE id = ANY(%s)", [list(dirty_ids)])
    return dropped


def warm(ranges: Iterable[tuple[datetime, datetime]], batch: int = 5000) -> int:
    """Compute and keep the step windows that steps touching ``ranges`` open with: on each run's servers,
    the default counter (total CPU) and every counter of the campaign's limit table. Other counters are
    kept on their first ``stat=p95`` call. Returns the windows looked at."""
    from webapp.analysis.counters import DEFAULT_COUNTER, parse_counter
    from webapp.analysis.limits import campaign_limits, watched_series
    from webapp.core.models import Host, Run, RunStep
    from webapp.timeseries.models import CounterSeries

    spans = DirtyRanges(list(ranges)).spans()
    if not spans:
        return 0
    touching = RunStep.objects.none()
    for lo, hi in spans:
        touching = touching | RunStep.objects.filter(started_at__lt=hi, ended_at__gt=lo)
    steps = list(touching.distinct())
    runs = list(
        Run.objects.filter(pk__in={s.run_id for s in steps})
        .select_related("campaign")
        .prefetch_related("hosts")
    )
    cpu = parse_counter(DEFAULT_COUNTER)
    servers = {h.pk for run in runs for h in run.hosts.all() if h.role == Host.Role.SERVER}
    default = dict(
        CounterSeries.objects.filter(
            host_id__in=servers, object=cpu.object, instance=cpu.instance, counter=cpu.counter
        ).values_list("pk", "host_id")
    )
    series: dict[int, set[int]] = {}
    for run in runs:
        hosts = {h.pk for h in run.hosts.all() if h.role == Host.Role.SERVER}
        watched = watched_series([run], campaign_limits(run.campaign)).get(run.pk, [])
        series[run.pk] = {sid for sid, host in default.items() if host in hosts} | {
            w.series_id for w in watched
        }
    windows: list[Window] = []
    for step in steps:
        span = step_window(step, DEFAULT_TRIM)
        if span is not None:
            windows.extend(
                Window(len(windows) + 1, sid, *span) for sid in sorted(series.get(step.run_id, ()))
            )
    for start in range(0, len(windows), batch):
        window_p95(windows[start : start + batch])
    return len(windows)

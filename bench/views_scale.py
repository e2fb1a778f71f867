"""``make bench-views-100m``: every counter view at 1 M, 10 M and 100 M samples, in one process.

Issue 25: a lab keeps a year of perfmon logs; no view of one run may slow
down as the database grows. Three studies are loaded into one throw-away
database, shaped like the labs' own logs: five scenarios, one run each of
ten load steps of four hours (20-minute ramps, idle time at each end that is
not a whole minute), a file server logging every 15 seconds. The studies
differ only in how many counters the server logs -- 19, 193 and 1,923, so
about 1 M, 10 M and 100 M samples -- as a lab's database grows by more
servers, counters and runs rather than by faster sampling (``make
bench-views`` covers that: ten times the samples in every window).

Samples are written by the server itself (``INSERT ... SELECT`` over
``generate_series``: no Python in the loop), then the rollups are refreshed,
``VACUUM ANALYZE`` runs and the step percentiles the worker keeps are
computed, all as after a real load. Each view is then timed on the three
studies in turn (three warm-up calls, then the median of ``--repeat``):

* ``capacity`` (step averages from the rollups) and ``capacity?stat=p95``;
* ``sizing`` for 3,000 users;
* the total-CPU trace of one run over a day (its middle 24 hours) and over
  the whole run (43 hours), 1,200 pixels wide;
* ``compare`` of the scenarios' logon timings (50 per run).

It prints every figure, the ratio 100 M / 1 M per view and, last, the two
lines outside checks read: ``worst ratio 100 M / 1 M: X.XX`` and ``slowest at
100 M: N ms`` (targets: <= 1.5 and < 200 ms). ``--scale 0.01`` runs the same
shape at a hundredth of the size, to try the script.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.views import (
    LIMIT_COUNTERS,
    SCENARIOS,
    capacity_call,
    drop_bench_database,
    scenario_runs,
    server_series,
    signed_in,
    sizing_call,
    use_bench_database,
)
from webapp.timeseries.samples import DAY, MICROS, ROW_TIME

STEPS = 10
STEP_SECONDS = 4 * 3600
RAMP_SECONDS = 20 * 60
EDGE_SECONDS = 10 * 60 + 7
INTERVAL = 15
RUN_SECONDS = 2 * EDGE_SECONDS + STEPS * STEP_SECONDS + (STEPS - 1) * RAMP_SECONDS
ROWS_PER_STUDY = len(SCENARIOS) * (RUN_SECONDS // INTERVAL + 1)
TARGETS = (("1 M", 1_000_000), ("10 M", 10_000_000), ("100 M", 100_000_000))
TIMINGS_PER_RUN = 50

# The total CPU of a run, offset seconds in: idle at the ends, the steps' plateaus, linear ramps,
# and a seeded jitter of +-6 points. Other counters: seeded noise.
# Written straight into the row layout (webapp.timeseries.samples) as upload 0's rows, from
# row id %(base)s on: a row every INTERVAL seconds (its time a point of series ROW_TIME), each
# holding every series.
_ROWS_SQL = f"""
    INSERT INTO sample_point (day, series_id, row_id, value)
    SELECT {DAY.format("t")}, {ROW_TIME}, %(base)s + o / {INTERVAL}, {MICROS.format("t")}
    FROM generate_series(0, {RUN_SECONDS}, {INTERVAL}) AS o
    CROSS JOIN LATERAL (SELECT %(start)s::timestamptz + make_interval(secs => o) AS t) r
"""
_LOAD_SQL = f"""
    INSERT INTO sample_point (day, series_id, row_id, value)
    SELECT {DAY.format("%(start)s::timestamptz + make_interval(secs => o)")}, s, %(base)s + o / {INTERVAL},
           CASE WHEN s = %(cpu)s THEN
               least(100.0, greatest(0.0, (
                   CASE WHEN o < {EDGE_SECONDS} OR o >= {RUN_SECONDS - EDGE_SECONDS} THEN 2.5
                   ELSE %(per_step)s * (1 + (o - {EDGE_SECONDS}) / {STEP_SECONDS + RAMP_SECONDS})
                        + %(per_step)s * greatest(0, (o - {EDGE_SECONDS}) %% {STEP_SECONDS + RAMP_SECONDS}
                                                     - {STEP_SECONDS}) / {RAMP_SECONDS}::float8
                   END) + (random() * 12 - 6)))
           ELSE random() * 1000 END
    FROM generate_series(0, {RUN_SECONDS}, {INTERVAL}) AS o, unnest(%(series)s::bigint[]) AS s
"""


def counters_for(target: int, scale: float) -> int:
    return max(len(LIMIT_COUNTERS) + 1, round(target * scale / ROWS_PER_STUDY))


def create_study(project: Any, slug: str, host_name: str, counters: int, first_day: int) -> dict[str, Any]:
    """A campaign with one run per scenario on its own file server, with load steps and logon timings."""
    from webapp.core.models import Campaign, Host
    from webapp.core.runs import apply_steps
    from webapp.timeseries.models import Measurement

    campaign = Campaign.objects.create(project=project, slug=slug, name=slug)
    host = Host.objects.create(project=project, name=host_name, role=Host.Role.SERVER)
    series = server_series(host, counters)
    runs = scenario_runs(campaign, [host], first_day, 2, "day", RUN_SECONDS)
    for index, run in enumerate(runs):
        start = run.started_at
        steps = []
        for number in range(STEPS):
            began = start + timedelta(seconds=EDGE_SECONDS + number * (STEP_SECONDS + RAMP_SECONDS))
            steps.append((100 * (number + 1), began, began + timedelta(seconds=STEP_SECONDS)))
        apply_steps(run, steps)
        Measurement.objects.bulk_create(
            Measurement(
                run=run,
                host_id=host.pk,
                metric="logon",
                value=1000.0 + 40 * index + (n % 7) * 10,
                unit="ms",
                repetition=n + 1,
                time=start + timedelta(seconds=EDGE_SECONDS + 60 * n),
                upload_id=0,  # no upload behind them, as the samples (upload 0)
            )
            for n in range(TIMINGS_PER_RUN)
        )
    return {"slug": slug, "campaign": campaign, "series": series, "runs": runs, "day": first_day}


def load_study(study: dict[str, Any]) -> tuple[int, dict[str, float]]:
    """Write a study's samples server-side, then what the worker does after a load; (rows, seconds per part)."""
    from django.db import connection

    from webapp.analysis.window_percentiles import warm
    from webapp.timeseries import backend

    seconds: dict[str, float] = {}
    rows = 0
    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("SELECT setseed(%s)", [study["day"] / 1000.0])
        for run, (_, per_step) in zip(study["runs"], SCENARIOS, strict=True):
            cursor.execute(
                f"SELECT coalesce(max(row_id) + 1, 0) FROM sample_point WHERE series_id = {ROW_TIME} AND row_id < %s",
                [1 << 32],
            )
            base = cursor.fetchone()[0]
            params = {"start": run.started_at, "cpu": study["series"][0], "per_step": per_step, "base": base}
            cursor.execute(_ROWS_SQL, params)
            cursor.execute(_LOAD_SQL, {**params, "series": study["series"]})
            rows += cursor.rowcount
    seconds["insert"] = time.perf_counter() - started
    first, last = study["runs"][0].started_at, study["runs"][-1].ended_at
    started = time.perf_counter()
    backend.refresh_rollups(first, last)
    seconds["rollups"] = time.perf_counter() - started
    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE sample_point")
        cursor.execute(f"VACUUM ANALYZE {backend.ROLLUP}")
    seconds["vacuum"] = time.perf_counter() - started
    started = time.perf_counter()
    warm([(first, last)])
    seconds["percentiles"] = time.perf_counter() - started
    return rows, seconds


def in_turn(calls: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    """Median seconds per call: three warm-up calls each, then rounds in which every call is timed once,
    each round starting one study later (whichever goes first in a round pays for what the round
    before left behind)."""
    names = list(calls)
    for name in names:
        for _ in range(3):
            calls[name]()
    times: dict[str, list[float]] = {name: [] for name in names}
    for round_ in range(repeat):
        for name in names[round_ % len(names) :] + names[: round_ % len(names)]:
            started = time.perf_counter()
            calls[name]()
            times[name].append(time.perf_counter() - started)
    return {name: statistics.median(values) for name, values in times.items()}


def get_call(client: Any, url: str) -> Callable[[], object]:
    def call() -> object:
        response = client.get(url, secure=True)
        assert response.status_code == 200, (url, response.content[:300])
        return response

    return call


def view_calls(client: Any, study: dict[str, Any]) -> dict[str, Callable[[], object]]:
    slug, run, cpu = study["slug"], study["runs"][2], study["series"][0]
    day_start = run.started_at + timedelta(hours=10)
    day = f"&start={day_start.isoformat()}&end={(day_start + timedelta(days=1)).isoformat()}".replace(
        "+", "%2B"
    )
    baseline = study["runs"][0].scenario_id
    return {
        "capacity": capacity_call(client, slug),
        "capacity p95": capacity_call(client, slug, "?stat=p95"),
        "sizing": sizing_call(client, slug),
        "trace, a day": get_call(client, f"/api/v1/runs/{run.pk}/trace?series={cpu}&width=1200{day}"),
        "trace, whole run": get_call(client, f"/api/v1/runs/{run.pk}/trace?series={cpu}&width=1200"),
        "compare": get_call(client, f"/api/v1/campaigns/{slug}/compare?baseline={baseline}"),
    }


def run_scale(project: Any, client: Any, repeat: int, scale: float) -> int:
    from django.db import connection

    ms = 1000.0
    studies = []
    for number, (label, target) in enumerate(TARGETS):
        counters = counters_for(target, scale)
        study = create_study(project, f"scale-{number}", f"FS{number + 10}", counters, 40 * number)
        rows, seconds = load_study(study)
        parts = ", ".join(f"{name} {value:.0f} s" for name, value in seconds.items())
        print(
            f"{label} study: {rows:,} samples, {counters} counters every {INTERVAL} s, 5 runs of {RUN_SECONDS / 3600:.1f} h ({parts})"
        )
        studies.append((label, study))
        if number == 0:  # for reference: the smallest study before the database grows around it
            calls = view_calls(client, study)
            alone = {name: in_turn({label: call}, repeat)[label] for name, call in calls.items()}
            print("  alone in the database: " + ", ".join(f"{n} {v * ms:.1f} ms" for n, v in alone.items()))
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM sample_point")
        print(f"database now: {cursor.fetchone()[0]:,} samples; the studies timed in turn")
    names = list(view_calls(client, studies[0][1]))
    found: dict[str, dict[str, float]] = {}
    for name in names:
        calls = {label: view_calls(client, study)[name] for label, study in studies}
        found[name] = in_turn(calls, repeat)
    first, last = TARGETS[0][0], TARGETS[-1][0]
    print(f"  {'view':18} " + " ".join(f"{label:>9}" for label, _ in TARGETS) + f"   {last} / {first}")
    ratios = {}
    for name in names:
        ratios[name] = found[name][last] / found[name][first]
        figures = " ".join(f"{found[name][label] * ms:6.1f} ms" for label, _ in TARGETS)
        print(f"  {name:18} {figures}   {ratios[name]:.2f}")
    worst = max(ratios, key=lambda name: ratios[name])
    slowest = max(names, key=lambda name: found[name][last])
    print(f"worst ratio {last} / {first}: {ratios[worst]:.2f}  ({worst}; target <= 1.50)")
    print(f"slowest at {last}: {found[slowest][last] * ms:.0f} ms  ({slowest}; target < 200 ms)")
    return 0 if ratios[worst] <= 1.5 and found[slowest][last] < 0.2 else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=21, help="timed calls per view and study")
    parser.add_argument("--scale", type=float, default=1.0, help="study sizes times this (0.01 to try it)")
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
    scratch = use_bench_database()
    try:
        project, client = signed_in()
        return run_scale(project, client, args.repeat, args.scale)
    finally:
        drop_bench_database(scratch)


if __name__ == "__main__":
    sys.exit(main())

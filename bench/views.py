"""``make bench-views``: the capacity endpoint at 1 M and at 10 M counter samples, in one run.

1. Creates a throw-away database ``headroom_bench_views`` beside the
   configured one and migrates it.
2. Loads a capacity study shaped like the demo's FSCT runs: 5 scenarios, a
   file server logging ``--counters`` counters (a perfmon log of a few
   hundred columns) through 10 load steps of 10 minutes with 2-minute ramps
   and an idle minute at each end -- first at a 10-second sample interval
   (~1 M samples), then the same study at a 1-second interval (~10 M
   samples: every step window holds ten times the samples). Rows are
   generated here and written with raw ``COPY`` (this is a read benchmark);
   the one-minute rollups are then refreshed as the worker would.
3. At each size, times ``GET /api/v1/campaigns/bench/capacity`` (Django's
   test client, in process, signed in): three warm-up calls, then the median
   of ``--repeat`` calls.
4. Prints both medians, their ratio (target <= 1.5) and the 10 M figure
   against the 200 ms target. For reference it also times ``stat=p95``
   (which must read every raw sample of every window) and the raw-only path
   the endpoint takes while a load's rollups are still pending.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DB_NAME = "headroom_bench_views"
SCENARIOS = (
    ({"server_os": "2008 R2", "smb_dialect": "2.1", "disk_type": "SSD", "av": "off"}, 9.0),
    ({"server_os": "2012 R2", "smb_dialect": "3.02", "disk_type": "SSD", "av": "off"}, 8.0),
    ({"server_os": "2012 R2", "smb_dialect": "3.02", "disk_type": "SSD", "av": "on"}, 10.0),
    ({"server_os": "2012 R2", "smb_dialect": "3.02", "disk_type": "SSD", "av": "on-access-off"}, 9.5),
    ({"server_os": "2012 R2", "smb_dialect": "3.02", "disk_type": "HDD", "av": "off"}, 9.8),
)
STEPS = 10
STEP_SECONDS = 600
RAMP_SECONDS = 120
EDGE_SECONDS = 60
RUN_SECONDS = 2 * EDGE_SECONDS + STEPS * STEP_SECONDS + (STEPS - 1) * RAMP_SECONDS
DAY0 = datetime(2016, 1, 4, 9, 0, tzinfo=UTC)


def use_bench_database() -> None:
    from webapp.launcher import ensure_database

    scratch = ensure_database(os.environ["DATABASE_URL"], "headroom_bench_scratch")
    import psycopg

    with psycopg.connect(scratch, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DB_NAME}")
    base, _, query = scratch.partition("?")
    os.environ["DATABASE_URL"] = base.rsplit("/", 1)[0] + f"/{DB_NAME}" + (f"?{query}" if query else "")


def step_windows(start: datetime) -> list[tuple[int, datetime, datetime]]:
    steps = []
    for number in range(STEPS):
        began = start + timedelta(seconds=EDGE_SECONDS + number * (STEP_SECONDS + RAMP_SECONDS))
        steps.append((100 * (number + 1), began, began + timedelta(seconds=STEP_SECONDS)))
    return steps


def cpu_level(offset: int, per_100_users: float) -> float:
    """The CPU level ``offset`` seconds into a run: idle, the steps' plateaus, linear ramps."""
    inside = offset - EDGE_SECONDS
    if inside < 0 or inside >= STEPS * STEP_SECONDS + (STEPS - 1) * RAMP_SECONDS:
        return 2.5
    number, within = divmod(inside, STEP_SECONDS + RAMP_SECONDS)
    level = per_100_users * (number + 1)
    if within < STEP_SECONDS:
        return level
    return level + per_100_users * (within - STEP_SECONDS) / RAMP_SECONDS


def run_rows(
    start: datetime, series: list[int], per_100_users: float, interval: int, seed: int
) -> Iterator[str]:
    """COPY text for one run: every counter, every ``interval`` seconds."""
    rng = random.Random(seed)
    cpu, others = series[0], series[1:]
    chunk: list[str] = []
    for offset in range(0, RUN_SECONDS, interval):
        stamp = (start + timedelta(seconds=offset)).isoformat()
        level = cpu_level(offset, per_100_users)
        value = min(100.0, max(0.0, level + rng.uniform(-6, 6)))
        chunk.append(f"{stamp}\t{cpu}\t{value:.4f}\t0\n")
        for sid in others:
            chunk.append(f"{stamp}\t{sid}\t{rng.random() * 1000:.3f}\t0\n")
        if len(chunk) >= 50_000:
            yield "".join(chunk)
            chunk.clear()
    if chunk:
        yield "".join(chunk)


def create_runs(campaign, host) -> None:
    from webapp.core.models import Run, Scenario
    from webapp.core.runs import apply_steps

    for index, (dims, _) in enumerate(SCENARIOS):
        start = DAY0 + timedelta(days=index)
        run = Run.objects.create(
            campaign=campaign,
            scenario=Scenario.for_dims(campaign, dims),
            name=f"fsct-{index}",
            tool="perfmon",
            started_at=start,
            ended_at=start + timedelta(seconds=RUN_SECONDS),
        )
        run.hosts.add(host)
        apply_steps(run, step_windows(start))


def load_samples(series: list[int], interval: int) -> int:
    """Replace all samples with the study logged every ``interval`` seconds; refresh rollups; return rows."""
    from django.db import connection

    from webapp.timeseries import backend

    rows = 0
    raw = connection.connection
    with raw.cursor() as cursor:
        cursor.execute("TRUNCATE counter_sample")
        with cursor.copy("COPY counter_sample (time, series_id, value, upload_id) FROM STDIN") as copy:
            for index, (_, per_100_users) in enumerate(SCENARIOS):
                start = DAY0 + timedelta(days=index)
                for text in run_rows(start, series, per_100_users, interval, seed=index):
                    copy.write(text)
                    rows += text.count("\n")
    raw.commit()
    # What the worker does after a load.
    backend.refresh_rollups(DAY0, DAY0 + timedelta(days=len(SCENARIOS)))
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE counter_sample")
        cursor.execute(f"VACUUM ANALYZE {backend.ROLLUP}")
    return rows


def timed(call: Callable[[], object], repeat: int) -> float:
    """Median seconds of ``repeat`` calls after three warm-up calls."""
    for _ in range(3):
        call()
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def measure(client, repeat: int) -> dict[str, float]:
    from webapp.timeseries.models import RollupDirty

    def get(query: str) -> Callable[[], object]:
        def call() -> object:
            response = client.get(f"/api/v1/campaigns/bench/capacity{query}")
            assert response.status_code == 200, response.content
            return response

        return call

    figures = {"avg": timed(get(""), repeat), "p95": timed(get("?stat=p95"), max(3, repeat // 3))}
    # A pending dirty range over everything forces the raw-only path.
    dirty = RollupDirty.objects.create(start=DAY0 - timedelta(days=1), end=DAY0 + timedelta(days=400))
    figures["raw"] = timed(get(""), max(3, repeat // 3))
    dirty.delete()
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counters", type=int, default=280, help="counters in the server's perfmon log")
    parser.add_argument("--repeat", type=int, default=21, help="timed calls per size")
    args = parser.parse_args()

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
    # WhiteNoise warns that collectstatic never ran; the API does not need static files.
    warnings.filterwarnings("ignore", message="No directory at")
    use_bench_database()
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    from webapp.core.models import Campaign, Host, Project
    from webapp.timeseries.models import CounterSeries

    call_command("migrate", verbosity=0)
    project = Project.objects.create(slug="bench", name="Bench")
    campaign = Campaign.objects.create(project=project, slug="bench", name="Bench")
    host = Host.objects.create(project=project, name="FS01", role=Host.Role.SERVER)
    names = [("Processor", "_Total", "% Processor Time")]
    names += [("PhysicalDisk", f"{i} D:", f"Counter {i}") for i in range(1, args.counters)]
    series = [
        CounterSeries.objects.create(host=host, object=o, instance=i, counter=c).pk for o, i, c in names
    ]
    user = get_user_model().objects.create_superuser("bench", "bench@example.invalid", "bench-pw-1")
    client = Client()
    client.force_login(user)

    create_runs(campaign, host)
    results = {}
    for label, interval in (("1M", 10), ("10M", 1)):
        started = time.perf_counter()
        loaded = load_samples(series, interval)
        print(
            f"{label}: {loaded:,} samples, one every {interval} s per counter "
            f"(loaded in {time.perf_counter() - started:.0f} s)"
        )
        results[label] = measure(client, args.repeat)
        figures = results[label]
        print(
            f"  capacity (avg, default): {figures['avg'] * 1000:7.1f} ms   "
            f"stat=p95: {figures['p95'] * 1000:7.1f} ms   raw-only path: {figures['raw'] * 1000:7.1f} ms"
        )
    small, big = results["1M"]["avg"], results["10M"]["avg"]
    ratio = big / small
    print(f"capacity endpoint: 1 M samples {small * 1000:.1f} ms, 10 M samples {big * 1000:.1f} ms")
    print(f"ratio 10 M / 1 M: {ratio:.2f}  (target <= 1.50)")
    print(f"10 M under 200 ms: {'yes' if big < 0.2 else 'NO'}")
    return 0 if ratio <= 1.5 and big < 0.2 else 1


if __name__ == "__main__":
    sys.exit(main())

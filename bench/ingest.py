"""``make bench-ingest``: perfmon CSV through the real API and a real worker vs raw COPY.

1. Generates a perfmon CSV (3,600 rows x 200 counters by default; ``--big``
   makes a ~500 MB one), one per round, each from its own host.
2. Starts a real Celery worker process and sends it a small upload first, so
   its start-up and first-task costs stay out of the figures.
3. Per round (``--repeat``, default 3): posts the file to the upload API
   (Django's test client, in process, against the real database) and times
   until the worker has stored it; then copies the very rows the worker
   produced into a copy of the table with raw ``COPY`` from this process, and
   times that. The copy is the same kind of table: on TimescaleDB a
   hypertable with ``sample_point``'s chunk interval and indexes, on plain
   PostgreSQL a table with its indexes. Alternating the two puts load from
   other processes on both alike.
4. Prints the mode, each round (API, queue and worker time), rows/s of both
   over all rounds and their ratio (target >= 0.8), and the worker's peak RSS
   from the kernel's own accounting (``VmHWM``; target < 300 MB on --big).

Runs in a throw-away database ``<name>_bench`` beside the configured one;
set ``HEADROOM_TIMESCALE=on`` and point ``DATABASE_URL`` at a server with
TimescaleDB for that mode. TimescaleDB's background jobs (compression and
rollup policies) are paused while it runs so they cannot land on either
measurement.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def generate(path: Path, rows: int, counters: int, host: str = "BENCH01") -> int:
    """Write a PDH-CSV 4.0 file the way relog does; return its size."""
    rng = random.Random(7)
    objects = ["Processor", "PhysicalDisk", "LogicalDisk", "Network Interface", "Process"]
    names = [f"\\\\{host}\\{objects[i % 5]}(inst{i})\\Counter {i}" for i in range(counters)]
    start = datetime(2015, 3, 2, 9, 0, 0)
    with open(path, "w", encoding="utf-8", newline="") as out:
        out.write('"(PDH-CSV 4.0) (GMT Standard Time)(0)",' + ",".join(f'"{n}"' for n in names) + "\r\n")
        for r in range(rows):
            stamp = (start + timedelta(seconds=r)).strftime("%m/%d/%Y %H:%M:%S.000")
            values = ",".join(f'"{rng.random() * 100:.6f}"' for _ in range(counters))
            out.write(f'"{stamp}",{values}\r\n')
    return path.stat().st_size


def make_baseline_table(cursor: Any, mode: str) -> None:
    """``bench_scratch``: an empty table shaped like ``sample_point``, hypertable included."""
    cursor.execute("CREATE TABLE bench_scratch (LIKE sample_point INCLUDING ALL)")
    if mode != "timescaledb":
        return
    # LIKE copied the hypertable's indexes (its time index included), so none are added here.
    cursor.execute(
        "SELECT time_interval FROM timescaledb_information.dimensions "
        "WHERE hypertable_name = 'sample_point' AND column_name = 'day'"
    )
    (interval,) = cursor.fetchone()
    cursor.execute(
        "SELECT create_hypertable('bench_scratch', 'day', chunk_time_interval => %s, "
        "create_default_indexes => false)",
        [interval],
    )
    cursor.execute(
        "SELECT count(*) FROM pg_indexes WHERE tablename = 'sample_point' "
        "UNION ALL SELECT count(*) FROM pg_indexes WHERE tablename = 'bench_scratch'"
    )
    ours, theirs = (row[0] for row in cursor.fetchall())
    assert ours == theirs, f"baseline has {theirs} indexes, sample_point {ours}"


def pause_background_jobs(cursor: Any) -> None:
    """Stop TimescaleDB's policies in this database for the run (they would add noise)."""
    cursor.execute(
        "SELECT alter_job(job_id, scheduled => false) FROM timescaledb_information.jobs WHERE job_id >= 1000"
    )


def upload_and_wait(
    client: Any, path: Path, campaign: str, host: str, token: str
) -> tuple[Any, float, float, float]:
    """Post ``path`` to the API and wait for the worker; (upload, started, accepted, finished)."""
    from webapp.core.models import Upload

    started = time.perf_counter()
    with open(path, "rb") as handle:
        response = client.post(
            "/api/v1/uploads",
            {"file": handle, "campaign": campaign, "host": host, "role": "server"},
            HTTP_AUTHORIZATION=f"Bearer {token}",
        )
    accepted = time.perf_counter()
    assert response.status_code == 202, response.content
    upload_id = response.json()["id"]
    while True:
        upload = Upload.objects.get(pk=upload_id)
        if upload.status in ("stored", "failed"):
            return upload, started, accepted, time.perf_counter()
        time.sleep(0.02)


def peak_rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=3600)
    parser.add_argument("--counters", type=int, default=200)
    parser.add_argument("--big", action="store_true", help="a ~500 MB file (about 1,300,000 x 200 cells)")
    parser.add_argument(
        "--repeat", type=int, default=3, help="rounds of pipeline then baseline (1 with --big)"
    )
    args = parser.parse_args()
    if args.big:
        args.rows = 210_000
        args.counters = 200
        args.repeat = 1

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
    base_url = os.environ["DATABASE_URL"]
    from webapp.launcher import ensure_database, worker_command

    bench_url = ensure_database(base_url, "headroom_bench_scratch")
    import psycopg

    with psycopg.connect(bench_url, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS headroom_bench WITH (FORCE)")
        conn.execute("CREATE DATABASE headroom_bench")
    os.environ["DATABASE_URL"] = (
        bench_url.rsplit("/", 1)[0]
        + "/headroom_bench"
        + ("" if "?" not in bench_url else "?" + bench_url.split("?", 1)[1])
    )
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from webapp.core.models import Campaign, Project
    from webapp.core.models.tokens import AgentToken
    from webapp.timeseries import backend
    from workers.celery import app

    call_command("migrate", verbosity=0)
    mode = backend.mode()
    if mode == "timescaledb":
        with connection.cursor() as cursor:
            pause_background_jobs(cursor)
    print(f"mode: {mode}")
    project = Project.objects.create(slug="bench", name="Bench")
    campaign = Campaign.objects.create(project=project, slug="bench", name="Bench")
    _, token = AgentToken.issue(project, "bench")
    app.control.purge()

    workdir = Path(tempfile.mkdtemp(prefix="hr-bench-"))
    paths = []
    for round_number in range(1, args.repeat + 1):
        paths.append(workdir / f"bench{round_number}.csv")
        size = generate(paths[-1], args.rows, args.counters, host=f"BENCH{round_number:02d}")
    print(f"file: {args.rows:,} rows x {args.counters} counters, {size / 1e6:.1f} MB; {args.repeat} round(s)")

    raw = connection.connection
    with raw.cursor() as cursor:
        make_baseline_table(cursor, mode)
    raw.commit()
    worker_log = open(workdir / "worker.log", "wb")  # noqa: SIM115  (lives as long as the worker)
    worker = subprocess.Popen(
        worker_command(f"bench-{os.getpid()}@%h", queues="ingest", pool="solo", concurrency=1),
        cwd=ROOT,
        env=os.environ.copy(),
        stdout=subprocess.DEVNULL,
        stderr=worker_log,
    )
    pipeline_seconds: list[float] = []
    copy_seconds: list[float] = []
    rows = 0
    try:
        client = Client()
        # Worker start-up and its first task's one-off costs (lazy imports, the
        # first connection) are not part of the measurement: a small upload
        # from another host goes through first, as on a worker that has run before.
        warmup_path = workdir / "warmup.csv"
        generate(warmup_path, 10, args.counters, host="WARMUP01")
        warmup = upload_and_wait(client, warmup_path, campaign.slug, "WARMUP01", token)[0]
        if warmup.status != "stored":
            print(f"warm-up upload failed: {warmup.error}")
            return 1
        # Rounds alternate pipeline and baseline, so load from other processes
        # on the machine falls on both alike; both tables grow alike too.
        for round_number, path in enumerate(paths, start=1):
            upload, started, accepted, finished = upload_and_wait(
                client, path, campaign.slug, f"BENCH{round_number:02d}", token
            )
            if upload.status != "stored":
                print(f"upload failed: {upload.error}")
                return 1
            copy_seconds.append(baseline_copy(raw, upload.pk))
            pipeline_seconds.append(finished - started)
            rows = upload.rows
            assert upload.queued_at and upload.started_at and upload.finished_at
            print(
                f"round {round_number}: pipeline {pipeline_seconds[-1]:.2f} s (API accept {accepted - started:.2f} s, "
                f"queue {(upload.started_at - upload.queued_at).total_seconds():.2f} s, worker "
                f"{(upload.finished_at - upload.started_at).total_seconds():.2f} s), raw COPY "
                f"{copy_seconds[-1]:.2f} s, ratio {copy_seconds[-1] / pipeline_seconds[-1]:.2f}"
            )
        rss = peak_rss_mb(worker.pid)
    finally:
        worker.terminate()
        worker.wait(timeout=30)
        worker_log.close()

    ratios = sorted(c / p for c, p in zip(copy_seconds, pipeline_seconds, strict=True))
    pipeline_rate = rows * len(paths) / sum(pipeline_seconds)
    copy_rate = rows * len(paths) / sum(copy_seconds)
    print(f"rows stored per round: {rows:,}")
    print(f"pipeline (API -> worker -> stored): {sum(pipeline_seconds):.2f} s = {pipeline_rate:,.0f} rows/s")
    print(f"raw COPY of the same rows:          {sum(copy_seconds):.2f} s = {copy_rate:,.0f} rows/s")
    print(
        f"ratio pipeline / raw COPY: {pipeline_rate / copy_rate:.2f}  (target >= 0.80)  [{mode}]"
        f"  rounds {ratios[0]:.2f}..{ratios[-1]:.2f}"
    )
    print(f"worker peak RSS: {rss:.0f} MB  (target < 300 MB on --big)")
    return 0


def baseline_copy(raw: Any, upload_id: int) -> float:
    """Raw COPY of the samples the worker stored for ``upload_id`` into ``bench_scratch``; its seconds.

    (The rows' times are points too, one per row of samples: the baseline copies them with the samples.)
    """
    from webapp.timeseries.samples import first_row

    buffer = io.BytesIO()
    with raw.cursor() as cursor:
        with cursor.copy(
            "COPY (SELECT day, series_id, row_id, value FROM sample_point WHERE row_id >= %s AND row_id < %s) TO STDOUT",
            [first_row(upload_id), first_row(upload_id + 1)],
        ) as copy:
            for chunk in copy:
                buffer.write(chunk)
        raw.commit()
        data = buffer.getvalue()
        copy_started = time.perf_counter()
        with cursor.copy("COPY bench_scratch (day, series_id, row_id, value) FROM STDIN") as copy:
            for offset in range(0, len(data), 1 << 20):
                copy.write(data[offset : offset + (1 << 20)])
        raw.commit()
        return time.perf_counter() - copy_started


if __name__ == "__main__":
    sys.exit(main())

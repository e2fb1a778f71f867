"""``make bench-ingest``: perfmon CSV through the real API and a real worker vs raw COPY.

1. Generates a perfmon CSV (3,600 rows x 200 counters by default; ``--big``
   makes a ~500 MB one).
2. Posts it to the upload API (Django's test client, in process, against the
   real database) and times until a real Celery worker process has stored it.
3. Copies the very rows the worker produced into a scratch copy of the table
   with raw ``COPY`` from this process, and times that.
4. Prints rows/s of both, their ratio (target >= 0.7) and the worker's peak
   RSS from the kernel's own accounting (``VmHWM``; target < 300 MB on --big).

Runs in a throw-away database ``<name>_bench`` beside the configured one.
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def generate(path: Path, rows: int, counters: int) -> int:
    """Write a PDH-CSV 4.0 file the way relog does; return its size."""
    rng = random.Random(7)
    objects = ["Processor", "PhysicalDisk", "LogicalDisk", "Network Interface", "Process"]
    names = [f"\\\\BENCH01\\{objects[i % 5]}(inst{i})\\Counter {i}" for i in range(counters)]
    start = datetime(2015, 3, 2, 9, 0, 0)
    with open(path, "w", encoding="utf-8", newline="") as out:
        out.write('"(PDH-CSV 4.0) (GMT Standard Time)(0)",' + ",".join(f'"{n}"' for n in names) + "\r\n")
        for r in range(rows):
            stamp = (start + timedelta(seconds=r)).strftime("%m/%d/%Y %H:%M:%S.000")
            values = ",".join(f'"{rng.random() * 100:.6f}"' for _ in range(counters))
            out.write(f'"{stamp}",{values}\r\n')
    return path.stat().st_size


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
    args = parser.parse_args()
    if args.big:
        args.rows = 210_000
        args.counters = 200

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

    from webapp.core.models import Campaign, Project, Upload
    from webapp.core.models.tokens import AgentToken
    from workers.celery import app

    call_command("migrate", verbosity=0)
    project = Project.objects.create(slug="bench", name="Bench")
    campaign = Campaign.objects.create(project=project, slug="bench", name="Bench")
    _, token = AgentToken.issue(project, "bench")
    app.control.purge()

    workdir = Path(tempfile.mkdtemp(prefix="hr-bench-"))
    csv_path = workdir / "bench.csv"
    size = generate(csv_path, args.rows, args.counters)
    print(f"file: {args.rows:,} rows x {args.counters} counters, {size / 1e6:.1f} MB")

    worker_log = open(workdir / "worker.log", "wb")  # noqa: SIM115  (lives as long as the worker)
    worker = subprocess.Popen(
        worker_command(f"bench-{os.getpid()}@%h", queues="ingest", pool="solo", concurrency=1),
        cwd=ROOT,
        env=os.environ.copy(),
        stdout=subprocess.DEVNULL,
        stderr=worker_log,
    )
    try:
        time.sleep(3)  # worker start-up is not part of the measurement
        client = Client()
        started = time.perf_counter()
        with open(csv_path, "rb") as handle:
            response = client.post(
                "/api/v1/uploads",
                {"file": handle, "campaign": campaign.slug, "host": "BENCH01", "role": "server"},
                HTTP_AUTHORIZATION=f"Bearer {token}",
            )
        accepted = time.perf_counter()
        assert response.status_code == 202, response.content
        upload_id = response.json()["id"]
        while True:
            upload = Upload.objects.get(pk=upload_id)
            if upload.status in ("stored", "failed"):
                break
            time.sleep(0.02)
        finished = time.perf_counter()
        if upload.status != "stored":
            print(f"upload failed: {upload.error}")
            return 1
        rss = peak_rss_mb(worker.pid)
    finally:
        worker.terminate()
        worker.wait(timeout=30)
        worker_log.close()

    rows = upload.rows
    pipeline_seconds = finished - started
    # Baseline: the same normalised rows, raw COPY into a scratch copy of the table.
    buffer = io.BytesIO()
    raw = connection.connection
    with raw.cursor() as cursor:
        with cursor.copy(
            "COPY (SELECT time, series_id, value, upload_id FROM counter_sample WHERE upload_id = %s) TO STDOUT",
            [upload_id],
        ) as copy:
            for chunk in copy:
                buffer.write(chunk)
        cursor.execute("CREATE TABLE bench_scratch (LIKE counter_sample INCLUDING ALL)")
        raw.commit()
        data = buffer.getvalue()
        copy_started = time.perf_counter()
        with cursor.copy("COPY bench_scratch (time, series_id, value, upload_id) FROM STDIN") as copy:
            for offset in range(0, len(data), 1 << 20):
                copy.write(data[offset : offset + (1 << 20)])
        raw.commit()
        copy_seconds = time.perf_counter() - copy_started
    pipeline_rate = rows / pipeline_seconds
    copy_rate = rows / copy_seconds
    print(f"rows stored: {rows:,}")
    print(f"API accept (raw store): {accepted - started:.2f} s")
    print(f"pipeline (API -> worker -> stored): {pipeline_seconds:.2f} s = {pipeline_rate:,.0f} rows/s")
    print(f"raw COPY of the same rows:          {copy_seconds:.2f} s = {copy_rate:,.0f} rows/s")
    print(f"ratio pipeline / raw COPY: {pipeline_rate / copy_rate:.2f}  (target >= 0.70)")
    print(f"worker peak RSS: {rss:.0f} MB  (target < 300 MB on --big)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

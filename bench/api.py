"""``make bench-api``: 200 concurrent small uploads to gunicorn with real workers; p50/p99 and none lost.

1. Creates a throw-away database ``<configured>_bench_api`` beside the configured
   one (migrated), with a project, a campaign and an agent token.
2. Starts a private Redis on a free loopback port when ``redis-server`` is
   installed (otherwise it uses the configured broker), gunicorn on a free
   loopback port, and a Celery worker -- the same processes production runs.
3. First sends the same burst to ``bench/baseline_wsgi.py`` (a WSGI app that
   only reads the body and answers 202) under the same gunicorn command: the
   floor of this machine, gunicorn and the load generator. Headroom's
   latencies are printed as ratios against it.
4. Warms every gunicorn worker up (imports, database connection), unmeasured.
5. Sends ``--uploads`` small timings JSON files to ``POST /api/v1/uploads``
   (or ``--endpoint timings``: the agents' JSON batch) from as many threads,
   released at once; a latency is from the first byte sent to the last
   received. ``--worker-nice 10`` runs the worker at a lower CPU priority,
   as a host that runs web and workers side by side should.
6. Waits until the worker has stored every upload and prints p50/p90/p99/max
   latency, how many were answered 202 and how many are stored (target:
   p99 < 250 ms, none lost). The exit status is 1 when an upload is lost.

Every process it starts is stopped when it ends, also on failure or Ctrl-C.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.stack import (
    Processes,
    bench_environment,
    free_port,
    fresh_database,
    private_redis,
    request,
    start,
    stop,
    up,
    wait_for,
    web_command,
)
from webapp.launcher import worker_command

BOUNDARY = "HeadroomBench"
TARGET_P99_MS = 250.0


def timings_file(index: int) -> bytes:
    """A small timings JSON file (five rows) whose bytes differ for every ``index``."""
    rows = [
        {
            "name": f"app_launch.bench{index}",
            "started_at": f"2015-06-01T09:{index // 60 % 60:02d}:{index % 60:02d}Z",
            "duration_ms": 1000 + index + repetition,
            "repetition": repetition,
        }
        for repetition in range(1, 6)
    ]
    return json.dumps(rows).encode()


def build_requests(
    endpoint: str, count: int, campaign: str, token: str
) -> list[tuple[str, bytes, dict[str, str]]]:
    auth = {"Authorization": f"Bearer {token}"}
    built = []
    for index in range(count):
        data = timings_file(index)
        if endpoint == "timings":
            body = json.dumps({"campaign": campaign, "host": "BENCH01", "timings": json.loads(data)}).encode()
            built.append(("/api/v1/timings", body, {**auth, "Content-Type": "application/json"}))
            continue
        parts = [
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="campaign"\r\n\r\n{campaign}\r\n',
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="host"\r\n\r\nBENCH01\r\n',
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="timings-{index}.json"\r\n'
            "Content-Type: application/json\r\n\r\n",
        ]
        body = "".join(parts).encode() + data + f"\r\n--{BOUNDARY}--\r\n".encode()
        headers = {**auth, "Content-Type": f"multipart/form-data; boundary={BOUNDARY}"}
        built.append(("/api/v1/uploads", body, headers))
    return built


def fire(
    port: int, requests: list[tuple[str, bytes, dict[str, str]]], rate: float = 0.0
) -> list[tuple[int, float, bytes]]:
    """Send every request from its own thread; (status, seconds, body) each.

    All are released together, or with ``rate`` > 0 the i-th is sent i / rate
    seconds after the first (an open-loop arrival rate).
    """
    results: list[tuple[int, float, bytes]] = [(0, 0.0, b"")] * len(requests)
    gate = threading.Barrier(len(requests) + 1)
    origin: list[float] = []

    def one(index: int) -> None:
        path, body, headers = requests[index]
        gate.wait()
        if rate > 0:
            time.sleep(max(0.0, origin[0] + index / rate - time.perf_counter()))
        started = time.perf_counter()
        try:
            status, answer = request(port, "POST", path, body, headers)
        except OSError as exc:
            status, answer = -1, str(exc).encode()
        results[index] = (status, time.perf_counter() - started, answer)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(requests))]
    for thread in threads:
        thread.start()
    origin.append(time.perf_counter())
    gate.wait()
    for thread in threads:
        thread.join(timeout=120)
    return results


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


def latencies_ms(results: list[tuple[int, float, bytes]]) -> list[float]:
    return [seconds * 1000 for _, seconds, _ in results]


def baseline(
    requests: list[tuple[str, bytes, dict[str, str]]], workers: int, threads: int, rate: float, workdir: Path
) -> list[float]:
    """The same burst against ``bench/baseline_wsgi.py`` under the same gunicorn: the machine's floor."""
    port = free_port()
    proc = start(
        web_command("bench.baseline_wsgi:app", port, workers, threads),
        dict(os.environ),
        workdir / "baseline.log",
    )
    try:
        wait_for("baseline gunicorn up", lambda: up(port), 60)
        fire(port, requests[: 2 * workers])  # warm, as for Headroom
        return latencies_ms(fire(port, requests, rate))
    finally:
        stop(proc)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--uploads", type=int, default=200)
    parser.add_argument("--endpoint", choices=("uploads", "timings"), default="uploads")
    parser.add_argument(
        "--rate",
        type=float,
        default=0.0,
        help="uploads per second (default 0: all at once, the target's case)",
    )
    cpus = os.cpu_count() or 2
    parser.add_argument("--web-workers", type=int, default=2 * cpus + 1, help="gunicorn workers")
    parser.add_argument(
        "--web-threads",
        type=int,
        default=1,
        help="threads per gunicorn worker (more than 1: the gthread worker)",
    )
    parser.add_argument("--worker-concurrency", type=int, default=2, help="Celery prefork processes")
    parser.add_argument(
        "--worker-nice",
        type=int,
        default=0,
        help="run the Celery worker at this CPU niceness (e.g. 10: ingest yields the CPU to the API)",
    )
    args = parser.parse_args()

    bench_environment()
    database = fresh_database("bench_api")
    workdir = Path(tempfile.mkdtemp(prefix="hr-bench-api-"))
    processes = Processes(workdir)
    try:
        private_redis(processes)
        print(f"broker: {os.environ.get('CELERY_BROKER_URL')}  database: {database}")

        import django

        django.setup()
        from django.core.management import call_command

        from webapp.core.models import Campaign, Project, Upload
        from webapp.core.models.tokens import AgentToken

        call_command("migrate", verbosity=0)
        project = Project.objects.create(slug="bench", name="Bench")
        campaign = Campaign.objects.create(project=project, slug="bench", name="Bench")
        _, token = AgentToken.issue(project, "bench")

        env = dict(os.environ)
        port = free_port()
        requests = build_requests(args.endpoint, args.uploads, campaign.slug, token)
        floor = baseline(requests, args.web_workers, args.web_threads, args.rate, workdir)

        processes.start(web_command("webapp.wsgi", port, args.web_workers, args.web_threads), env, "gunicorn")
        worker_argv = worker_command(f"bench-api-{os.getpid()}@%h", concurrency=args.worker_concurrency)
        if args.worker_nice:
            worker_argv = ["nice", "-n", str(args.worker_nice), *worker_argv]
        processes.start(worker_argv, env, "worker")
        wait_for("gunicorn and a worker healthy", lambda: up(port), 90)
        # Warm every gunicorn worker (imports, a database connection); not measured.
        warm = fire(
            port,
            [("/api/v1/uploads", b"", {"Authorization": f"Bearer {token}"})]
            * (2 * args.web_workers * args.web_threads),
        )
        assert all(status == 400 for status, _, _ in warm), [status for status, _, _ in warm]

        pace = f"at {args.rate:g}/s" if args.rate > 0 else "at once"
        print(
            f"sending {len(requests)} uploads {pace} to POST {requests[0][0]} ({args.web_workers} gunicorn workers x {args.web_threads} threads)"
        )
        started = time.perf_counter()
        results = fire(port, requests, args.rate)
        sent_seconds = time.perf_counter() - started
        accepted = [json.loads(body)["id"] for status, _, body in results if status == 202]
        latencies = latencies_ms(results)
        failures = [(status, body[:200]) for status, _, body in results if status != 202]

        def drained() -> bool:
            return Upload.objects.filter(pk__in=accepted, status__in=["stored", "failed"]).count() == len(
                accepted
            )

        wait_for("every upload stored", drained, 300)
        stored_seconds = time.perf_counter() - started
        stored = Upload.objects.filter(pk__in=accepted, status="stored")
        rows = sum(stored.values_list("rows", flat=True))
        p99 = percentile(latencies, 0.99)
        print(
            f"latency ms: p50 {statistics.median(latencies):.0f}  p90 {percentile(latencies, 0.90):.0f}  "
            f"p99 {p99:.0f}  max {max(latencies):.0f}  (target p99 < {TARGET_P99_MS:.0f})"
        )
        print(
            f"baseline (bench/baseline_wsgi.py, same gunicorn and burst): p50 {statistics.median(floor):.0f}  "
            f"p99 {percentile(floor, 0.99):.0f}  ->  Headroom/baseline p50 "
            f"{statistics.median(latencies) / statistics.median(floor):.1f}x  p99 {p99 / percentile(floor, 0.99):.1f}x"
        )
        print(
            f"answered 202: {len(accepted)}/{len(requests)} in {sent_seconds:.2f} s ({len(requests) / sent_seconds:.0f} req/s)"
        )
        if failures:
            print(f"not accepted: {failures[:5]}")
        print(
            f"stored: {stored.count()}/{len(requests)} uploads, {rows:,} rows, all done {stored_seconds:.1f} s after the first request"
        )
        served = [
            float(line.split()[-1]) * 1000
            for line in (workdir / "gunicorn.log").read_text().splitlines()
            if line.startswith("access POST") and " 202 " in line
        ]
        if served:
            print(
                f"of which in a gunicorn worker (the rest is waiting for one): p50 {statistics.median(served):.0f}"
                f"  p99 {percentile(served, 0.99):.0f}  max {max(served):.0f}"
            )
        lost = len(requests) - stored.count()
        print(f"lost: {lost}")
        print(
            f"p99 target {'met' if p99 < TARGET_P99_MS else 'MISSED'}; none lost: {'yes' if lost == 0 else 'NO'}"
        )
        return 0 if lost == 0 else 1
    finally:
        processes.close()


if __name__ == "__main__":
    sys.exit(main())

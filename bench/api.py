"""``make bench-api``: 200 concurrent small uploads to gunicorn with real workers; p50/p99 and none lost.

1. Creates a throw-away database ``headroom_bench_api`` beside the configured
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
import contextlib
import http.client
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from webapp.launcher import redis_command, worker_command  # noqa: E402  (needs the path above)

BOUNDARY = "HeadroomBench"
TARGET_P99_MS = 250.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start(argv: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with open(log, "ab") as out:
        return subprocess.Popen(
            argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=20)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)


def wait_for(what: str, predicate: Any, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise SystemExit(f"{what}: not within {timeout:.0f} s")


def request(port: int, method: str, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


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


def web_command(app: str, port: int, workers: int, threads: int) -> list[str]:
    """Gunicorn as the benchmark runs it, for Headroom and for the baseline alike."""
    argv = [sys.executable, "-m", "gunicorn", app, "-b", f"127.0.0.1:{port}", "-w", str(workers)]
    if threads > 1:
        argv += ["-k", "gthread", "--threads", str(threads)]
    argv += ["--backlog", "2048", "--access-logfile", "-"]
    return argv + ["--access-logformat", "access %(m)s %(U)s %(s)s %(L)s"]


def up(port: int) -> bool:
    try:
        return request(port, "GET", "/healthz", b"", {})[0] in (200, 202)
    except OSError:
        return False


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

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
    from webapp.launcher import ensure_database

    admin_url = ensure_database(os.environ["DATABASE_URL"], "headroom_bench_scratch")
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS headroom_bench_api WITH (FORCE)")
        conn.execute("CREATE DATABASE headroom_bench_api")
    base, _, query = admin_url.partition("?")
    os.environ["DATABASE_URL"] = (
        base.rsplit("/", 1)[0] + "/headroom_bench_api" + (f"?{query}" if query else "")
    )
    os.environ["HEADROOM_SSL_REDIRECT"] = "0"  # plain http on the loopback
    os.environ["HEADROOM_HSTS_SECONDS"] = "0"
    os.environ["HEADROOM_TOKEN_RATE_PER_MINUTE"] = "0"  # one token sends every upload
    workdir = Path(tempfile.mkdtemp(prefix="hr-bench-api-"))
    procs: list[subprocess.Popen[bytes]] = []
    try:
        if shutil.which("redis-server"):
            redis_port = free_port()
            procs.append(
                start(
                    redis_command(redis_port),
                    dict(os.environ),
                    workdir / "redis.log",
                )
            )
            os.environ["CELERY_BROKER_URL"] = f"redis://127.0.0.1:{redis_port}/0"
        print(f"broker: {os.environ.get('CELERY_BROKER_URL')}  database: headroom_bench_api")

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

        procs.append(
            start(
                web_command("webapp.wsgi", port, args.web_workers, args.web_threads),
                env,
                workdir / "gunicorn.log",
            )
        )
        worker_argv = worker_command(f"bench-api-{os.getpid()}@%h", concurrency=args.worker_concurrency)
        if args.worker_nice:
            worker_argv = ["nice", "-n", str(args.worker_nice), *worker_argv]
        procs.append(start(worker_argv, env, workdir / "worker.log"))
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
        for proc in reversed(procs):
            stop(proc)


if __name__ == "__main__":
    sys.exit(main())

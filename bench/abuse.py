"""``make bench-abuse``: what a signed-in caller can cost -- the seconds of each hostile request of issue 26.

1. Creates a throw-away database ``<configured>_abuse`` (migrated), starts a
   private Redis, gunicorn with 2 sync workers and a Celery worker (prefork,
   one process) -- the processes production runs (``bench/stack.py``). Seeds a
   project, a campaign, an agent token, a run, and a real perfmon log (the
   2,633-column fixture) ingested for a traces share link.
2. Baselines: the median of ``--healthz`` ``GET /healthz`` (every ratio is
   against it), and the *floor*: the same bytes sent to ``bench/baseline_wsgi.py``
   (reads the body, answers 202) under the same gunicorn command -- what
   moving the body costs on its own.
3. Sends each input of the issue (``bench/hostile.py``) with the agent token,
   or as signed-in owners for the member forms: once when it is large,
   ``--repeat`` times when cheap (the maximum is reported). A time runs from
   the first byte sent to the last byte received (``bench/exchange.py``).
   After an accepted upload it waits until the worker has settled it, so the
   next request does not share the CPU with an ingest (worker time is not a
   request's).
4. Sends the two slowest inputs again in parallel (to a second campaign, so an
   upload is not a duplicate) while ``GET /healthz`` is polled every 0.25 s.
5. Prints one Markdown table (docs/reliability.md quotes it): per input the
   bytes sent, the answer, the seconds, the ratio to ``/healthz``, the floor
   and the verdict against the target (answered as expected within 3 s); the
   exit status is 1 when one misses it.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import hostile as h
from bench.abuse_setup import Seeded, member_races, seed, wait_idle
from bench.exchange import Answer, at_once, exchange
from bench.stack import (
    Processes,
    bench_environment,
    free_port,
    fresh_database,
    private_redis,
    stop,
    up,
    wait_for,
    web_command,
)
from webapp.launcher import worker_command

TARGET_SECONDS = 3.0
WEB_WORKERS = 2  # the gunicorn


@dataclass
class Case:
    label: str
    method: str
    path: str
    body: Callable[[str], bytes]  # the campaign's slug -> the body
    headers: dict[str, str]
    expect: frozenset[int]
    repeat: bool = True  # cheap: sent --repeat times
    answers: list[Answer] = field(default_factory=list)
    floor: float | None = None
    sent: int = 0  # bytes of the body

    @property
    def worst(self) -> Answer:
        return max(self.answers, key=lambda a: a.seconds)


def cases(s: Seeded) -> list[Case]:
    token = {"Authorization": f"Bearer {s.token}"}
    json_ = {**token, "Content-Type": "application/json"}
    multipart = {**token, "Content-Type": h.MULTIPART}
    gzip_json, gzip_multipart = {**token, **h.GZIP_JSON}, {**token, **h.GZIP_MULTIPART}
    rows_csv, rows_json = 2_000_000, 1_000_000

    def upload_csv(slug: str) -> bytes:
        return h.gzip_upload({"campaign": slug, "kind": "timings"}, "t.csv", h.timings_csv_lines(rows_csv))

    def upload_json(slug: str) -> bytes:
        return h.gzip_upload(
            {"campaign": slug, "kind": "timings"}, "t.json", h.timings_json_chunks(rows_json)
        )

    def bomb(slug: str) -> bytes:
        head, tail = h.multipart_parts({"campaign": slug}, "bomb.bin")
        return h.gzip_repeating(head, b"\0" * h.MiB, 4096, tail)

    def newlines(slug: str) -> bytes:
        head, tail = h.multipart_parts({"campaign": slug}, "lines.txt")
        return h.gzip_repeating(head, b"\n" * h.MiB, 1024, tail)

    ok, refused = frozenset({200, 201, 202}), frozenset({400, 413})
    return [
        Case("1 campaign with 100,000 dimensions", "POST", "/api/v1/campaigns",
             lambda _: h.dimensions_body(100_000), json_, frozenset({400})),
        Case(f"2 timings CSV, {rows_csv:,} rows, gzip upload", "POST", "/api/v1/uploads",
             upload_csv, gzip_multipart, ok, repeat=False),
        Case(f"3 timings JSON, {rows_json:,} rows, gzip upload", "POST", "/api/v1/uploads",
             upload_json, gzip_multipart, ok, repeat=False),
        Case("4 samples batch, 26,908 items x 400 values, gzip", "POST", "/api/v1/samples",
             lambda slug: h.gzip_stream([h.padded_samples(slug, 26_908)]), gzip_json, frozenset({413})),
        Case("5 gzip bomb upload, 4 GiB inflated", "POST", "/api/v1/uploads", bomb, gzip_multipart,
             frozenset({413}), repeat=False),
        Case("5 gzip upload of 1 GiB of newlines", "POST", "/api/v1/uploads", newlines, gzip_multipart,
             frozenset({413})),
        Case("6 load steps: 5,000", "POST", f"/api/v1/runs/{s.run}/steps", lambda _: h.steps_body(5000),
             json_, frozenset({413})),
        Case("6 load steps: 1,000", "POST", f"/api/v1/runs/{s.run}/steps", lambda _: h.steps_body(1000),
             json_, frozenset({200})),
        Case("8 traces share link, 12 series of a 2,633-column log", "GET", s.share_path, lambda _: b"", {},
             frozenset({200})),
        Case("9 multipart without a boundary", "POST", "/api/v1/uploads", lambda _: b"--x\r\n",
             {**token, "Content-Type": "multipart/form-data"}, frozenset({400})),
        Case("9 multipart, 100,000-character filename", "POST", "/api/v1/uploads",
             lambda slug: h.multipart({"campaign": slug}, "a" * 100_000, b"data"), multipart, refused),
        Case("9 samples batch with a lone surrogate escape", "POST", "/api/v1/samples",
             lambda slug: h.surrogate_samples(slug), json_, frozenset({400})),
    ]  # fmt: skip


def send(port: int, case: Case, slug: str) -> Answer:
    body = case.body(slug)
    case.sent = len(body)
    return exchange(port, case.method, case.path, body, case.headers)


def size(count: int) -> str:
    return f"{count / 1e6:.1f} MB" if count >= 1e6 else f"{count / 1e3:.1f} kB"


def floors(todo: list[Case], slug: str, workdir: Path, processes: Processes) -> None:
    """Each large body (over 100 kB) sent to the baseline app: the cost of moving its bytes."""
    port = free_port()
    proc = processes.start(
        web_command("bench.baseline_wsgi:app", port, WEB_WORKERS), dict(os.environ), "baseline"
    )
    wait_for("baseline gunicorn up", lambda: up(port), 60)
    for case in todo:
        body = case.body(slug)
        if len(body) > 100_000:
            case.floor = exchange(port, case.method, case.path, body, case.headers).seconds
    stop(proc)


def healthz_under(port: int, slowest: list[Case], slug: str) -> tuple[list[Answer], list[Answer]]:
    """The slowest cases sent together while /healthz is polled; (their answers, the polls)."""
    bodies = [c.body(slug) for c in slowest]
    polls: list[Answer] = []
    done = threading.Event()

    def poll() -> None:
        while not done.is_set():
            polls.append(exchange(port, "GET", "/healthz"))
            time.sleep(0.25)

    poller = threading.Thread(target=poll)
    poller.start()
    time.sleep(0.5)  # a few polls before, as a reference
    answers = at_once(
        [
            partial(exchange, port, c.method, c.path, b, c.headers)
            for c, b in zip(slowest, bodies, strict=True)
        ]
    )
    time.sleep(0.5)
    done.set()
    poller.join()
    return answers, polls


def warm(port: int, seeded: Seeded) -> None:
    """Every gunicorn worker past its first request of each kind (imports, connections); not measured."""
    headers = {"Authorization": f"Bearer {seeded.token}", "Content-Type": h.MULTIPART}
    fields = {"campaign": seeded.campaign, "kind": "timings"}
    row = '[{{"name": "warm", "started_at": "2015-07-01T10:00:00Z", "duration_ms": {}}}]'
    for round_ in range(2):
        uploads = [
            h.multipart(fields, "warm.json", row.format(10 * round_ + i).encode())
            for i in range(2 * WEB_WORKERS)
        ]
        requests = [partial(exchange, port, "POST", "/api/v1/uploads", body, headers) for body in uploads]
        requests += [
            partial(exchange, port, "GET", path) for path in ("/healthz", seeded.share_path)
        ] * WEB_WORKERS
        at_once(requests)
    wait_idle()


def verdict(ok: bool, seconds: float) -> str:
    return "ok" if ok and seconds < TARGET_SECONDS else ("MISSED" if ok else "WRONG ANSWER")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repeat", type=int, default=5, help="times a cheap input is sent (the max is reported)"
    )
    parser.add_argument("--healthz", type=int, default=20, help="GET /healthz for the baseline median")
    args = parser.parse_args()
    bench_environment()
    database = fresh_database("abuse")
    workdir = Path(tempfile.mkdtemp(prefix="hr-bench-abuse-"))
    processes = Processes(workdir)
    try:
        private_redis(processes)
        print(f"broker: {os.environ.get('CELERY_BROKER_URL')}  database: {database}  logs: {workdir}")
        import django

        logging.disable(logging.INFO)  # this process's sign-ins (the member races) would log each one
        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        env, port = dict(os.environ), free_port()
        processes.start(web_command("webapp.wsgi", port, WEB_WORKERS), env, "gunicorn")
        processes.start(worker_command(f"bench-abuse-{os.getpid()}@%h", concurrency=1), env, "worker")
        wait_for("gunicorn and a worker healthy", lambda: up(port), 90)
        seeded = seed(port)
        todo = cases(seeded)
        floors(todo, seeded.campaign, workdir, processes)
        warm(port, seeded)
        healthz = statistics.median(exchange(port, "GET", "/healthz").seconds for _ in range(args.healthz))
        print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start")
        print(f"baseline: GET /healthz median of {args.healthz}: {healthz * 1000:.1f} ms")
        print(
            f"floor: the same bytes to bench/baseline_wsgi.py; target: the expected answer within {TARGET_SECONDS:.0f} s\n"
        )

        for case in todo:
            for _ in range(args.repeat if case.repeat else 1):
                case.answers.append(send(port, case, seeded.campaign))
            wait_idle()
        races = member_races(port, args.repeat)
        slowest = sorted(todo, key=lambda c: c.worst.seconds)[-2:]
        loaded, polls = healthz_under(port, slowest, seeded.other_campaign)
        wait_idle()

        print("| input | sent | answer | n | max s | x healthz | floor s | verdict |")
        print("|---|---|---|---|---|---|---|---|")
        failed = False
        rows = [
            (c.label, size(c.sent), c.worst.status, len(c.answers), c.worst.seconds, c.floor,
             all(a.status in c.expect for a in c.answers))
            for c in todo
        ]  # fmt: skip
        rows += [(label, "form", a.status, n, a.seconds, None, ok) for label, a, n, ok in races]
        for label, sent, status, n, seconds, floor, ok in rows:
            failed |= verdict(ok, seconds) != "ok"
            floor_text = f"{floor:.3f}" if floor is not None else ""
            print(
                f"| {label} | {sent} | {status} | {n} | {seconds:.3f} | {seconds / healthz:.1f} | {floor_text} "
                f"| {verdict(ok, seconds)} |"
            )
        # The slowest two again, at once, with /healthz polled meanwhile: rows of the same table.
        for case, answer in zip(slowest, loaded, strict=True):
            ok = answer.status in case.expect
            failed |= verdict(ok, answer.seconds) != "ok"
            print(
                f"| in parallel: {case.label} | {size(case.sent)} | {answer.status} | 1 | {answer.seconds:.3f} "
                f"| {answer.seconds / healthz:.1f} | | {verdict(ok, answer.seconds)} |"
            )
        worst = max(polls, key=lambda p: p.seconds)
        ok = all(p.status == 200 for p in polls)
        failed |= verdict(ok, worst.seconds) != "ok"
        print(
            f"| in parallel: GET /healthz every 0.25 s (median {statistics.median(p.seconds for p in polls):.3f} s)"
            f" | | {worst.status} | {len(polls)} | {worst.seconds:.3f} | {worst.seconds / healthz:.1f} | "
            f"| {verdict(ok, worst.seconds)} |"
        )
        print(
            f"\nGET /healthz median {healthz * 1000:.1f} ms; load average {os.getloadavg()[0]:.1f} at the end"
        )
        print(
            f"\ntarget: every answer as expected within {TARGET_SECONDS:.0f} s: {'MISSED' if failed else 'met'}"
        )
        return 1 if failed else 0
    finally:
        processes.close()


if __name__ == "__main__":
    sys.exit(main())

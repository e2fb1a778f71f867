"""The processes a benchmark runs against: a throw-away database, a private Redis, gunicorn and a worker.

Shared by ``bench/api.py`` and ``bench/abuse.py``, which measure the same
production processes: gunicorn (sync workers, or gthread) on a free loopback
port and a Celery worker started by ``webapp.launcher.worker_command``. Every
process runs in its own session, so it and its children (gunicorn's workers, a
prefork pool) are signalled as one group; ``Processes.close`` stops them all,
also when the benchmark failed or was interrupted.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from webapp.launcher import database_name, redis_command  # noqa: E402  (needs the path above)


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


class Processes:
    """The processes one benchmark started; ``close`` stops them, last started first."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(self, argv: list[str], env: dict[str, str], name: str) -> subprocess.Popen[bytes]:
        proc = start(argv, env, self.workdir / f"{name}.log")
        self.procs.append(proc)
        return proc

    def close(self) -> None:
        for proc in reversed(self.procs):
            stop(proc)
        self.procs.clear()


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


def web_command(app: str, port: int, workers: int, threads: int = 1) -> list[str]:
    """Gunicorn as the benchmarks run it, for Headroom and for the baseline alike."""
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


def fresh_database(suffix: str) -> str:
    """Point ``DATABASE_URL`` at a new, empty database ``<configured name>_<suffix>`` on the same server.

    The configured database (the launcher made it) is where the drop and create
    are sent from; the new one is dropped first if a previous run left it.
    """
    import psycopg
    from psycopg import sql

    url = os.environ["DATABASE_URL"]
    name = f"{database_name(url) or 'headroom'}_{suffix}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    parts = urlsplit(url)
    os.environ["DATABASE_URL"] = urlunsplit(parts._replace(path=f"/{name}"))
    return name


def private_redis(processes: Processes) -> None:
    """A private Redis on a free loopback port as the broker, when ``redis-server`` is installed.

    Otherwise the configured broker is used as it is.
    """
    if not shutil.which("redis-server"):
        return
    port = free_port()
    processes.start(redis_command(port), dict(os.environ), "redis")
    os.environ["CELERY_BROKER_URL"] = f"redis://127.0.0.1:{port}/0"

    def answers() -> bool:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as conn:
                conn.sendall(b"PING\r\n")
                return conn.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    wait_for(f"redis on port {port}", answers, 20)


def bench_environment() -> None:
    """Plain http on the loopback, and no per-token rate limit: one token sends everything."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
    os.environ["HEADROOM_SSL_REDIRECT"] = "0"
    os.environ["HEADROOM_HSTS_SECONDS"] = "0"
    os.environ["HEADROOM_TOKEN_RATE_PER_MINUTE"] = "0"

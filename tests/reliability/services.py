"""Real processes for the reliability tests, and a small HTTP client for the API.

A private Redis (``redis-server`` on a free loopback port), a private
PostgreSQL (``tests.pg_cluster``, on a Unix socket), gunicorn and
Celery workers. Each runs in its own session, so it and its children
(gunicorn's workers, a prefork pool) are signalled as one process group, and
``Stack.close`` stops whatever is still running even when the test failed.
Nothing listens beyond 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import http.client
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.paths import REPO
from tests.pg_cluster import Cluster, embedded_bin, require_timescale_bin
from tests.ports import free_port
from webapp.launcher import redis_command, worker_command

START_TIMEOUT = 60.0


def env_int(name: str, default: int) -> int:
    """A test size from the environment (``make reliability`` raises the CI defaults)."""
    value = os.environ.get(name, "").strip()
    return int(value) if value else default


def wait_until(predicate: Callable[[], Any], timeout: float, what: str, interval: float = 0.1) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"{what}: not within {timeout:.0f} s")


class Service:
    """One subprocess (and its children) with a log file; may be started again after a kill."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], log: Path) -> None:
        self.name = name
        self.argv = argv
        self.env = env
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        assert not self.running(), f"{self.name} is already running"
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log, "ab") as out:
            out.write(f"\n=== start {' '.join(self.argv)}\n".encode())
            out.flush()
            self.proc = subprocess.Popen(
                self.argv,
                cwd=REPO,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def signal_group(self, sig: int) -> None:
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, sig)

    def kill(self) -> None:
        """SIGKILL the whole process group: no clean-up code of ours or Celery's runs."""
        self.signal_group(signal.SIGKILL)
        if self.proc is not None:
            self.proc.wait(timeout=15)

    def stop(self, timeout: float = 20.0) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.signal_group(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        # Children that outlived their parent (a prefork pool) go too.
        self.signal_group(signal.SIGKILL)

    def tail(self, lines: int = 30) -> str:
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])


class RedisServer(Service):
    def __init__(self, log: Path) -> None:
        self.port = free_port()
        argv = redis_command(self.port)
        super().__init__("redis", argv, dict(os.environ), log)

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> None:
        super().start()
        wait_until(self.ping, 20, f"redis on port {self.port} answering")

    def ping(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as conn:
                conn.sendall(b"PING\r\n")
                return conn.recv(16).startswith(b"+PONG")
        except OSError:
            return False


class Gunicorn(Service):
    def __init__(self, env: dict[str, str], log: Path, workers: int = 2) -> None:
        self.port = free_port()
        argv = [
            sys.executable,
            "-m",
            "gunicorn",
            "webapp.wsgi",
            "-b",
            f"127.0.0.1:{self.port}",
            "-w",
            str(workers),
            "--timeout",
            "60",
            "--graceful-timeout",
            "5",
            "--access-logfile",
            "-",
        ]
        super().__init__("gunicorn", argv, env, log)

    @property
    def base(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        super().start()

        def answers() -> bool:
            if not self.running():
                raise AssertionError(f"gunicorn exited:\n{self.tail()}")
            try:
                return Client(self.base).get("/healthz").status > 0
            except OSError:
                return False

        wait_until(answers, START_TIMEOUT, "gunicorn answering", interval=0.2)


class Worker(Service):
    def __init__(self, env: dict[str, str], log: Path, pool: str = "solo", concurrency: int = 1) -> None:
        argv = worker_command(
            f"reliability-{os.getpid()}-{free_port()}@%h", pool=pool, concurrency=concurrency, loglevel="info"
        )
        super().__init__("worker", argv, env, log)

    def pool_children(self) -> list[int]:
        """Pids of the worker's pool processes (from /proc: their parent is the worker)."""
        children = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == self.pid:
                children.append(int(stat.parent.name))
        return children


class Stack:
    """The processes one test starts; ``close`` stops them all, last started first."""

    def __init__(self, name: str, var_dir: Path) -> None:
        self.name = name
        self.var_dir = var_dir
        self.log_dir = var_dir / "reliability"
        self.closers: list[Callable[[], None]] = []
        for old in self.log_dir.glob(f"{name}-*.log"):  # logs of this test's last run
            old.unlink()

    def _log(self, what: str) -> Path:
        return self.log_dir / f"{self.name}-{what}.log"

    def env(self, database_url: str, broker_url: str, **extra: str) -> dict[str, str]:
        return {
            **os.environ,
            "DATABASE_URL": database_url,
            "CELERY_BROKER_URL": broker_url,
            "HEADROOM_VAR_DIR": str(self.var_dir),
            "SECRET_KEY": os.environ.get("SECRET_KEY") or "reliability-only-secret-key-" + "x" * 30,
            "HEADROOM_WORKER_HEARTBEAT_SECONDS": "1",
            "HEADROOM_SWEEP_AFTER_SECONDS": "0",
            "PYTHONUNBUFFERED": "1",
            # Plain http on the loopback; production would redirect to https.
            "HEADROOM_SSL_REDIRECT": "0",
            "HEADROOM_HSTS_SECONDS": "0",
            **extra,
        }

    def redis(self) -> RedisServer:
        assert shutil.which("redis-server"), "these tests start their own Redis: install redis-server"
        server = RedisServer(self._log("redis"))
        self.closers.append(server.stop)
        server.start()
        return server

    def postgres(self) -> Cluster:
        """A server this test may stop: with TimescaleDB preloaded when the run is in that mode."""
        if os.environ.get("HEADROOM_TIMESCALE") == "on":
            server = Cluster(f"{self.name}-tsdb", require_timescale_bin(), preload=True)
        else:
            server = Cluster(self.name, embedded_bin(), preload=False)
        self.closers.append(server.close)
        return server

    def gunicorn(self, env: dict[str, str], workers: int = 2) -> Gunicorn:
        web = Gunicorn(env, self._log("gunicorn"), workers)
        self.closers.append(web.stop)
        web.start()
        return web

    def worker(self, env: dict[str, str], pool: str = "solo", concurrency: int = 1) -> Worker:
        worker = Worker(env, self._log("worker"), pool, concurrency)
        self.closers.append(worker.stop)
        worker.start()
        return worker

    def close(self) -> None:
        errors = []
        for close in reversed(self.closers):
            try:
                close()
            except Exception as exc:  # keep stopping the others
                errors.append(exc)
        self.closers.clear()
        if errors:
            raise errors[0]


def manage(env: dict[str, str], *args: str, timeout: float = 300) -> str:
    """Run ``manage.py`` with ``env``; its stdout."""
    result = subprocess.run(
        [sys.executable, str(REPO / "manage.py"), *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert result.returncode == 0, f"manage.py {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout


def send_sweep(broker_url: str) -> None:
    """Send the sweeper task to ``broker_url``, exactly as beat does every minute."""
    from workers.celery import app
    from workers.tasks import sweep_uploads

    with (
        app.connection_for_write(broker_url) as conn,
        app.producer_or_acquire(app.amqp.Producer(conn)) as producer,
    ):
        sweep_uploads.apply_async(producer=producer)


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: Any


class Client:
    """HTTP/1.1 to one gunicorn on 127.0.0.1, a new connection per request."""

    def __init__(self, base: str, token: str = "") -> None:
        self.host, port = base.split(":")
        self.port = int(port)
        self.token = token

    def request(
        self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
    ) -> Reply:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        try:
            sent = dict(headers or {})
            if self.token:
                sent["Authorization"] = f"Bearer {self.token}"
            conn.request(method, path, body=body, headers=sent)
            response = conn.getresponse()
            raw = response.read()
            found = {k.lower(): v for k, v in response.getheaders()}
        finally:
            conn.close()
        try:
            parsed: Any = json.loads(raw)
        except ValueError:
            parsed = raw.decode(errors="replace")
        return Reply(response.status, found, parsed)

    def get(self, path: str) -> Reply:
        return self.request("GET", path)

    def post_json(self, path: str, value: Any) -> Reply:
        return self.request("POST", path, json.dumps(value).encode(), {"Content-Type": "application/json"})

    def upload(self, campaign: str, data: bytes, filename: str, **fields: str) -> Reply:
        from django.test.client import encode_multipart

        file = io.BytesIO(data)
        file.name = filename
        body = encode_multipart("HeadroomBoundary", {"file": file, "campaign": campaign, **fields})
        return self.request(
            "POST",
            "/api/v1/uploads",
            body,
            {"Content-Type": "multipart/form-data; boundary=HeadroomBoundary"},
        )

"""Fixtures for the agent's tests: an isolated agent home, the real CLI as a subprocess, HTTP sinks, servers.

The agent is a separate distribution (``agents/``) with its own import root;
it is put on ``sys.path`` here so unit tests can import ``headroom_agent``,
and the subprocess tests run it exactly as testers do: ``python -m
headroom_agent`` and the built zipapp.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.paths import REPO
from tests.ports import free_port

AGENTS = REPO / "agents"
if str(AGENTS) not in sys.path:
    sys.path.insert(0, str(AGENTS))

AGENT_ENV = ("HEADROOM_SERVER", "HEADROOM_TOKEN", "HEADROOM_CAMPAIGN", "HEADROOM_SPOOL_DIR")


@dataclass
class AgentHome:
    """Where one test's agent keeps its config and data."""

    root: Path

    @property
    def config(self) -> Path:
        return self.root / "config" / "agent.json"

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def spool(self) -> Path:
        return self.data / "spool"

    def pending(self) -> list[Path]:
        return sorted((self.spool / "items").glob("*.req"))

    def rejected(self) -> list[Path]:
        return sorted((self.spool / "rejected").glob("*.req"))

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in AGENT_ENV}
        env.update(
            {
                "HEADROOM_CONFIG": str(self.config),
                "HEADROOM_DATA_DIR": str(self.data),
                "PYTHONPATH": str(AGENTS),
                "PYTHONUNBUFFERED": "1",
            }
        )
        return env


@pytest.fixture
def agent_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AgentHome:
    """A fresh, isolated agent home (also for in-process calls)."""
    home = AgentHome(tmp_path / "agent-home")
    for name in AGENT_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HEADROOM_CONFIG", str(home.config))
    monkeypatch.setenv("HEADROOM_DATA_DIR", str(home.data))
    return home


@dataclass
class AgentResult:
    returncode: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


AgentRunner = Callable[..., AgentResult]


@pytest.fixture(scope="session")
def zipapp_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The agent built as a zipapp by the same script ``make agent`` runs."""
    target = tmp_path_factory.mktemp("zipapp") / "headroom-agent.pyz"
    subprocess.run([sys.executable, str(AGENTS / "build_zipapp.py"), "--output", str(target)], check=True)
    return target


def agent_command(zipapp: Path | None = None) -> list[str]:
    return [sys.executable, str(zipapp)] if zipapp else [sys.executable, "-m", "headroom_agent"]


@pytest.fixture
def run_agent(agent_home: AgentHome) -> AgentRunner:
    """Run the real CLI in a subprocess: ``run_agent("upload", "f.csv", ..., zipapp=path)``."""

    def run(*args: str, zipapp: Path | None = None, timeout: float = 120.0) -> AgentResult:
        done = subprocess.run(
            [*agent_command(zipapp), *args],
            env=agent_home.env(),
            cwd=agent_home.root.parent,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        return AgentResult(done.returncode, done.stdout, done.stderr)

    return run


@dataclass
class Received:
    """One request the sink got (body inflated if it was gzipped)."""

    method: str
    path: str
    headers: dict[str, str]
    raw: bytes
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Sink:
    """A stand-in server: records requests, answers from a script or 202 with an upload."""

    url: str
    requests: list[Received] = field(default_factory=list)
    inventories: list[Received] = field(default_factory=list)  # PUT /api/v1/hosts/{host}/inventory
    answers: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, status: int, body: dict[str, Any]) -> None:
        """Queue the answer to the next request."""
        self.answers.append((status, body))

    def posts(self, path: str) -> list[Received]:
        return [r for r in self.requests if r.method == "POST" and r.path == path]


@pytest.fixture
def sink() -> Iterator[Sink]:
    box: dict[str, Sink] = {}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _handle(self) -> None:
            state = box["sink"]
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            body = gzip.decompress(raw) if self.headers.get("Content-Encoding") == "gzip" else raw
            with state.lock:
                received = Received(self.command, self.path, dict(self.headers), raw, body)
                # The machine inventory (PUT) is kept apart and never takes a scripted answer.
                (state.inventories if self.command == "PUT" else state.requests).append(received)
                number = len(state.requests)
                answer: dict[str, Any]
                if self.command == "PUT":
                    status, answer = 200, {"host": self.path}
                else:
                    status, answer = (
                        state.answers.pop(0)
                        if state.answers
                        else (202, {"id": number, "status": "received", "duplicate": False})
                    )
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = _handle

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    box["sink"] = Sink(f"http://127.0.0.1:{server.server_address[1]}")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield box["sink"]
    finally:
        server.shutdown()
        server.server_close()


class ServerProcess:
    """The real web app in its own process (gunicorn), on a fixed port, to stop and start again."""

    def __init__(self, port: int, env: dict[str, str], log: Path) -> None:
        self.port = port
        self.env = env
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> None:
        with open(self.log, "ab") as out:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "gunicorn",
                    "--bind",
                    f"127.0.0.1:{self.port}",
                    "--workers",
                    "1",
                    "--threads",
                    "4",
                    "webapp.wsgi",
                ],
                cwd=REPO,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        # Answering, not only listening: gunicorn listens before its worker has booted.
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            if self.process.poll() is not None:
                raise AssertionError(f"the server exited at start; see {self.log}")
            try:
                with urllib.request.urlopen(f"{self.url}/healthz", timeout=left):
                    return
            except urllib.error.HTTPError:
                return  # an answer (503 without a worker heartbeat)
            except OSError:
                time.sleep(0.1)
        raise AssertionError(f"the server did not answer on {self.port} within {timeout} s; see {self.log}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


@pytest.fixture
def server_process(transactional_db: None, tmp_path: Path) -> Iterator[ServerProcess]:
    """A real server process on the test database (started by the test, stopped at the end)."""
    from django.conf import settings

    from tests.conftest import database_url

    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "HEADROOM_VAR_DIR": str(settings.VAR_DIR),
        "HEADROOM_SSL_REDIRECT": "0",
    }
    server = ServerProcess(free_port(), env, tmp_path / "server.log")
    try:
        yield server
    finally:
        server.stop()

"""gunicorn with docker/entrypoint.sh's web-role command line, for the log tests."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.paths import REPO
from tests.ports import free_port


@dataclass(frozen=True)
class Gunicorn:
    port: int
    out: Path  # stdout: the access log
    err: Path  # stderr: gunicorn's and the app's logs

    def get(self, path: str, deadline: float) -> int:
        """The status of GET ``path``, retried while gunicorn is not yet listening (until ``deadline``).

        The timeout is long enough for the worker to boot: a request timed out
        here would be sent again, and logged twice.
        """
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=60) as reply:
                    return int(reply.status)
            except urllib.error.HTTPError as exc:
                return int(exc.code)
            except OSError:
                assert time.monotonic() < deadline, self.err.read_text()
                time.sleep(0.2)


@contextlib.contextmanager
def running_gunicorn(directory: Path, env: dict[str, str], workers: int = 1) -> Iterator[Gunicorn]:
    """``workers`` gunicorn workers (one unless told) on a free port, its logs in ``directory``; stopped (gracefully) on exit."""
    server = Gunicorn(free_port(), directory / "out.log", directory / "err.log")
    with open(server.out, "wb") as stdout, open(server.err, "wb") as stderr:
        process = subprocess.Popen(
            [
                str(Path(sys.executable).parent / "gunicorn"),
                "webapp.wsgi",
                "--config",
                "python:webapp.ops.gunicorn",
                "--bind",
                f"127.0.0.1:{server.port}",
                "--workers",
                str(workers),
                "--access-logfile",
                "-",
            ],
            cwd=REPO,
            env=env,
            stdout=stdout,
            stderr=stderr,
        )
    try:
        yield server
    finally:
        process.terminate()
        process.wait(timeout=20)

"""``LOG_FORMAT=json``: every line a process logs is one JSON object."""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from tests.paths import REPO
from webapp.ops.logs import JsonFormatter

KEYS = {"time", "level", "logger", "message", "exc_info"}


def json_lines(text: str) -> list[dict]:
    """Every non-blank line of ``text`` parsed as JSON (fails on the first that is not)."""
    records = []
    for line in text.splitlines():
        if line.strip():
            record = json.loads(line)
            assert set(record) >= KEYS, line
            records.append(record)
    return records


def test_it_formats_a_record_with_its_traceback_as_one_line():
    try:
        1 / 0  # noqa: B018
    except ZeroDivisionError:
        record = logging.LogRecord(
            "webapp.test", logging.ERROR, __file__, 1, "upload %s\nfailed", (7,), sys.exc_info()
        )
    line = JsonFormatter().format(record)
    assert "\n" not in line
    body = json.loads(line)
    assert body["level"] == "ERROR" and body["logger"] == "webapp.test"
    assert body["message"] == "upload 7\nfailed"
    assert body["exc_info"].startswith("Traceback") and "ZeroDivisionError" in body["exc_info"]
    assert body["time"].endswith("+00:00") and len(body["time"]) == len("2015-02-17T09:00:00.000+00:00")


def test_it_writes_null_exc_info_for_a_record_without_an_exception():
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "plain", (), None)
    assert json.loads(JsonFormatter().format(record))["exc_info"] is None


def test_it_logs_json_from_a_django_process_including_warnings():
    script = (
        "import logging, warnings\n"
        "warnings.warn('deprecated thing')\n"
        "try:\n"
        "    {}['missing']\n"
        "except KeyError:\n"
        "    logging.getLogger('webapp.ops').exception('lookup failed')\n"
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", script],
        cwd=REPO,
        env={**os.environ, "LOG_FORMAT": "json"},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    records = json_lines(result.stderr)
    failed = next(r for r in records if r["logger"] == "webapp.ops")
    assert failed["level"] == "ERROR" and failed["message"] == "lookup failed"
    assert "KeyError: 'missing'" in failed["exc_info"]
    assert any(r["logger"] == "py.warnings" and "deprecated thing" in r["message"] for r in records)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_it_logs_json_from_gunicorn_and_its_access_log(tmp_path: Path):
    port = free_port()
    out, err = tmp_path / "out.log", tmp_path / "err.log"
    with open(out, "wb") as stdout, open(err, "wb") as stderr:
        # The same command line as docker/entrypoint.sh's web role.
        server = subprocess.Popen(
            [
                str(Path(sys.executable).parent / "gunicorn"),
                "webapp.wsgi",
                "--config",
                "python:webapp.ops.gunicorn",
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                "1",
                "--access-logfile",
                "-",
            ],
            cwd=REPO,
            env={**os.environ, "LOG_FORMAT": "json"},
            stdout=stdout,
            stderr=stderr,
        )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                # Once gunicorn listens, the request waits for its worker to boot: a short
                # timeout would send it again, and the access log would hold two lines.
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=60)
                break
            except urllib.error.HTTPError:
                break  # 503 without a worker heartbeat: still an answer
            except OSError:
                assert time.monotonic() < deadline, err.read_text()
                time.sleep(0.2)
    finally:
        server.terminate()
        server.wait(timeout=20)
    access = json_lines(out.read_text())
    assert [r["logger"] for r in access] == ["gunicorn.access"]
    assert '"GET /healthz HTTP/1.1"' in access[0]["message"]
    errors = json_lines(err.read_text())
    assert any(r["logger"] == "gunicorn.error" and r["message"].startswith("Listening at") for r in errors)

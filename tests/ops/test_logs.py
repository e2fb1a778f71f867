"""``LOG_FORMAT=json``: every line a process logs is one JSON object."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.ops.gunicorn import running_gunicorn
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


def test_it_logs_json_from_gunicorn_and_its_access_log(tmp_path: Path):
    with running_gunicorn(tmp_path, {**os.environ, "LOG_FORMAT": "json"}) as server:
        server.get("/healthz", time.monotonic() + 30)  # any answer (503 without a worker heartbeat)
    out, err = server.out, server.err
    access = json_lines(out.read_text())
    assert [r["logger"] for r in access] == ["gunicorn.access"]
    assert '"GET /healthz HTTP/1.1"' in access[0]["message"]
    errors = json_lines(err.read_text())
    assert any(r["logger"] == "gunicorn.error" and r["message"].startswith("Listening at") for r in errors)

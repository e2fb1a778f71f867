"""Timing commands: from process start to exit, numbered repetitions, one batch after the last."""

from __future__ import annotations

import gzip
import json
import sys
from datetime import UTC, datetime

import pytest
from headroom_agent import windows
from headroom_agent.cli import main
from headroom_agent.timing import Timing, measure, timings_body

from tests.agents.conftest import AgentHome, Sink
from tests.ports import free_port

SLEEP_50MS = [sys.executable, "-c", "import time; time.sleep(0.05)"]


def test_it_times_a_command_from_start_to_exit() -> None:
    before = datetime.now(UTC)
    measured = measure(SLEEP_50MS)
    assert measured.exit_code == 0
    assert 50 <= measured.duration_ms < 5000
    assert before <= measured.started <= datetime.now(UTC)


def test_it_reports_the_exit_code_of_a_failing_command() -> None:
    assert measure([sys.executable, "-c", "raise SystemExit(3)"]).exit_code == 3


def test_the_batch_holds_named_numbered_utc_rows_in_stable_bytes() -> None:
    base = {"campaign": "c", "host": "pc1", "scenario": {"av": "on"}, "run": ""}
    rows = [Timing("launch", "2024-05-01T10:00:00.000001Z", 812.5, 1, {"app": "excel"})]
    body = timings_body(base, rows)
    assert timings_body(base, rows) == body
    value = json.loads(gzip.decompress(body))
    assert value["timings"] == [
        {
            "name": "launch",
            "started_at": "2024-05-01T10:00:00.000001Z",
            "duration_ms": 812.5,
            "repetition": 1,
            "tags": {"app": "excel"},
        }
    ]
    assert value["scenario"] == {"av": "on"}


def test_the_time_command_uploads_every_repetition_once(
    agent_home: AgentHome, sink: Sink, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "time",
            "--server",
            sink.url,
            "--token",
            "t",
            "--campaign",
            "c",
            "--name",
            "sleep",
            "--repeat",
            "3",
            "--tag",
            "size=small",
            "--",
            *SLEEP_50MS,
        ]
    )
    assert code == 0
    [request] = sink.posts("/api/v1/timings")
    assert request.headers["Content-Encoding"] == "gzip"
    rows = request.json()["timings"]
    assert [row["repetition"] for row in rows] == [1, 2, 3]
    assert all(row["duration_ms"] >= 50 and row["started_at"].endswith("Z") for row in rows)
    assert rows[0]["tags"] == {"size": "small"}
    assert "repetition 3/3: sleep" in capsys.readouterr().err


def test_failed_repetitions_are_not_recorded(
    agent_home: AgentHome, sink: Sink, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Fails on its second run only.
    flaky = (
        "import os, sys; p = os.environ['COUNTER']; n = int(open(p).read()) if os.path.exists(p) else 0; "
        "open(p, 'w').write(str(n + 1)); sys.exit(n == 1)"
    )
    agent_home.root.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("COUNTER", str(agent_home.root / "counter"))
    code = main(
        ["time", "--server", sink.url, "--token", "t", "--campaign", "c", "--name", "x", "--repeat", "3"]
        + ["--", sys.executable, "-c", flaky]
    )
    assert code == 1
    assert [row["repetition"] for row in sink.posts("/api/v1/timings")[0].json()["timings"]] == [1, 3]


def test_timings_are_spooled_when_the_server_is_away(
    agent_home: AgentHome, capsys: pytest.CaptureFixture[str]
) -> None:
    server = f"http://127.0.0.1:{free_port()}"
    code = main(
        ["time", "--server", server, "--token", "t", "--campaign", "c", "--name", "x", "--", *SLEEP_50MS]
    )
    assert code == 75
    err = capsys.readouterr().err
    assert "server unreachable (connection refused): 1 item spooled in" in err
    assert len(agent_home.pending()) == 1


@pytest.mark.skipif(windows.SUPPORTED, reason="checks the message on systems without Win32 windows")
def test_until_window_says_it_is_windows_only(
    agent_home: AgentHome, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["time", "--server", "http://localhost:1", "--token", "t", "--campaign", "c", "--name", "x"]
        + ["--until-window", "Excel", "--", "excel.exe"]
    )
    assert code == 2
    assert "--until-window is Windows-only" in capsys.readouterr().err


def test_a_missing_program_is_named(agent_home: AgentHome, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["time", "--server", "http://localhost:1", "--token", "t", "--campaign", "c", "--name", "x"]
        + ["--", "no-such-program-xyz"]
    )
    assert code == 1
    assert "cannot start 'no-such-program-xyz'" in capsys.readouterr().err


def test_the_time_command_sends_the_active_users_given(agent_home: AgentHome, sink: Sink) -> None:
    common = ["time", "--server", sink.url, "--token", "t", "--campaign", "c", "--name", "logon"]
    assert main([*common, "--users", "250", "--repeat", "2", "--", *SLEEP_50MS]) == 0
    assert main([*common, "--", *SLEEP_50MS]) == 0
    with_users, without = (post.json()["timings"] for post in sink.posts("/api/v1/timings"))
    assert [row["users"] for row in with_users] == [250, 250]
    assert "users" not in without[0]


def test_negative_users_are_a_usage_error(agent_home: AgentHome, sink: Sink) -> None:
    code = main(
        [
            "time",
            "--server",
            sink.url,
            "--token",
            "t",
            "--campaign",
            "c",
            "--name",
            "x",
            "--users",
            "-1",
            "--",
            *SLEEP_50MS,
        ]
    )
    assert code == 2
    assert sink.posts("/api/v1/timings") == []

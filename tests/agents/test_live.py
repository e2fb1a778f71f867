"""The real agent (module and zipapp) against the real server, database, broker and worker.

Each test runs ``headroom-agent`` as a subprocess, exactly as a tester would,
and then looks in the database for the rows it should have produced.
"""

from __future__ import annotations

import itertools
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.agents.conftest import (
    AgentHome,
    AgentRunner,
    ServerProcess,
    agent_command,
)
from tests.conftest import wait_for
from tests.factories import make_campaign, make_token
from tests.paths import FIXTURES
from tests.ports import free_port
from webapp.core.models import Campaign, Run, RunStep, Upload
from webapp.timeseries.models import CounterSample, CounterSeries, Measurement

pytestmark = [
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("settled_worker"),
]

PERFMON = FIXTURES / "perfmon_csv" / "narmadha_DataCollector01_LogicalDisk_IST.csv"
SLEEP = [sys.executable, "-c", "import time; time.sleep(0.05)"]


@pytest.fixture
def study(transactional_db: None) -> tuple[Campaign, str]:
    campaign = make_campaign()
    _, token = make_token(campaign.project)
    return campaign, token


def connect(server: str, study: tuple[Campaign, str]) -> list[str]:
    campaign, token = study
    return ["--server", server, "--token", token, "--campaign", campaign.slug]


def finished(campaign: Campaign, count: int = 1) -> list[Upload]:
    """The campaign's uploads once ``count`` of them reached a final status."""

    def done() -> list[Upload] | None:
        uploads = list(Upload.objects.filter(campaign=campaign).order_by("pk"))
        final = [u for u in uploads if u.status in (Upload.Status.STORED, Upload.Status.FAILED)]
        return uploads if len(final) >= count else None

    found: list[Upload] = wait_for(done, timeout=60)
    return found


@pytest.mark.parametrize("packaging", ["module", "zipapp"])
def test_an_upload_is_stored_and_its_rows_reported(
    packaging: str,
    live_server: Any,
    study: tuple[Campaign, str],
    worker_process: subprocess.Popen[bytes],
    run_agent: AgentRunner,
    request: pytest.FixtureRequest,
) -> None:
    zipapp = request.getfixturevalue("zipapp_path") if packaging == "zipapp" else None
    result = run_agent(
        "upload",
        str(PERFMON),
        *connect(live_server.url, study),
        "--host",
        "NARMADHA",
        "--role",
        "server",
        "--scenario",
        "disk_type=ssd",
        "--step",
        "10",
        "--wait",
        zipapp=zipapp,
    )
    [upload] = Upload.objects.filter(campaign=study[0])
    assert result.returncode == 0, result.output
    assert upload.status == Upload.Status.STORED
    assert upload.rows > 0
    assert (upload.host.name if upload.host else "", upload.role, upload.step_users) == (
        "NARMADHA",
        "server",
        10,
    )
    assert upload.scenario is not None and upload.scenario.dims == {"disk_type": "ssd"}
    assert upload.filename == PERFMON.name
    assert f"upload {upload.pk} stored: {upload.rows:,} rows (parser perfmon_csv)" in result.stdout


def test_a_parse_error_is_shown_verbatim(
    live_server: Any,
    study: tuple[Campaign, str],
    worker_process: subprocess.Popen[bytes],
    run_agent: AgentRunner,
    tmp_path: Path,
) -> None:
    broken = tmp_path / "broken.csv"
    broken.write_text(
        '"(PDH-CSV 4.0) (GMT Standard Time)(0)","\\\\FS01\\Memory\\Available MBytes"\n"garbage\n'
    )
    result = run_agent(
        "upload", str(broken), *connect(live_server.url, study), "--kind", "perfmon_csv", "--wait"
    )
    [upload] = finished(study[0])
    assert upload.status == Upload.Status.FAILED
    assert result.returncode == 1, result.output
    assert upload.error and upload.error["message"] in result.stdout
    assert f"upload {upload.pk} failed" in result.stdout


def test_timings_arrive_as_numbered_measurements(
    live_server: Any,
    study: tuple[Campaign, str],
    worker_process: subprocess.Popen[bytes],
    run_agent: AgentRunner,
) -> None:
    result = run_agent(
        "time",
        *connect(live_server.url, study),
        "--name",
        "app launch",
        "--repeat",
        "3",
        "--run",
        "t1",
        "--",
        *SLEEP,
    )
    assert result.returncode == 0, result.output
    [upload] = finished(study[0])
    assert upload.status == Upload.Status.STORED, upload.error
    rows = list(Measurement.objects.filter(upload_id=upload.pk).order_by("repetition"))
    assert [(m.metric, m.repetition) for m in rows] == [
        ("app launch", 1),
        ("app launch", 2),
        ("app launch", 3),
    ]
    assert all(m.value >= 50 for m in rows)
    assert Run.objects.get(pk=rows[0].run_id).name == "t1"


def test_live_samples_land_under_canonical_counter_names(
    live_server: Any,
    study: tuple[Campaign, str],
    worker_process: subprocess.Popen[bytes],
    run_agent: AgentRunner,
) -> None:
    pytest.importorskip("psutil")
    result = run_agent(
        "sample",
        *connect(live_server.url, study),
        "--run",
        "cap-1",
        "--host",
        "FS01",
        "--role",
        "server",
        "--interval",
        "0.2",
        "--duration",
        "1.2",
        "--batch",
        "0.5",
    )
    assert result.returncode == 0, result.output
    uploads = finished(study[0], count=Upload.objects.filter(campaign=study[0]).count())
    assert all(u.status == Upload.Status.STORED for u in uploads), [u.error for u in uploads]
    cpu = CounterSeries.objects.get(
        host__name="FS01", object="Processor", instance="_Total", counter="% Processor Time"
    )
    assert CounterSample.objects.filter(series=cpu).count() == 6
    assert CounterSeries.objects.filter(
        host__name="FS01", object="Memory", counter="Available MBytes"
    ).exists()


def test_steps_mark_the_run_timeline(
    live_server: Any, study: tuple[Campaign, str], run_agent: AgentRunner
) -> None:
    start = datetime(2024, 5, 1, 10, 0, tzinfo=UTC)
    stamps = [(start + timedelta(minutes=m)).isoformat().replace("+00:00", "Z") for m in (0, 5, 10)]
    base = [*connect(live_server.url, study), "--run", "fsct-1", "--scenario", "smb_dialect=3.02"]
    for extra in (
        ["--users", "100", "--at", stamps[0]],
        ["--users", "200", "--at", stamps[1]],
        ["--end", "--at", stamps[2]],
    ):
        result = run_agent("step", *base, *extra)
        assert result.returncode == 0, result.output
    assert "200 users from 2024-05-01T10:05:00Z to 2024-05-01T10:10:00Z" in result.stdout
    steps = [
        (s.users, s.started_at, s.ended_at)
        for s in RunStep.objects.filter(run__name="fsct-1").order_by("started_at")
    ]
    assert steps == [
        (100, start, start + timedelta(minutes=5)),
        (200, start + timedelta(minutes=5), start + timedelta(minutes=10)),
    ]


def test_spooled_items_arrive_with_flush(
    live_server: Any, study: tuple[Campaign, str], run_agent: AgentRunner, agent_home: AgentHome
) -> None:
    dead = f"http://127.0.0.1:{free_port()}"
    # The machine inventory is a spooled request too; these counts are the data's.
    away = run_agent("upload", "--no-inventory", str(PERFMON), *connect(dead, study))
    timed = run_agent("time", *connect(dead, study), "--name", "copy", "--", *SLEEP)
    assert (away.returncode, timed.returncode) == (75, 75)
    assert (
        f"server unreachable (connection refused): 1 item spooled in {agent_home.spool / 'items'}"
        in away.stderr
    )
    assert "2 items spooled in" in timed.stderr
    for users in ("10", "20"):
        assert run_agent("step", *connect(dead, study), "--run", "r", "--users", users).returncode == 75
    assert run_agent("step", *connect(dead, study), "--run", "r", "--end").returncode == 75
    assert len(agent_home.pending()) == 5
    assert Upload.objects.count() == 0

    flushed = run_agent("flush", "--server", live_server.url, "--token", study[1])
    assert flushed.returncode == 0, flushed.output
    assert agent_home.pending() == []
    steps = list(RunStep.objects.filter(run__name="r").order_by("started_at"))
    assert [s.users for s in steps] == [10, 20]
    assert steps[0].ended_at == steps[1].started_at
    assert steps[1].ended_at is not None
    uploads = finished(study[0], count=2)
    assert sorted(u.kind for u in uploads) == ["auto", "timings"]
    assert all(u.status == Upload.Status.STORED for u in uploads), [u.error for u in uploads]


def test_a_rejected_token_is_named_and_a_corrected_one_delivers(
    live_server: Any, study: tuple[Campaign, str], run_agent: AgentRunner, agent_home: AgentHome
) -> None:
    campaign, token = study
    result = run_agent(
        "upload",
        "--no-inventory",
        str(PERFMON),
        "--server",
        live_server.url,
        "--token",
        "hr_wrong",
        "--campaign",
        campaign.slug,
    )
    assert result.returncode == 1
    # 401 today is 403 "CSRF check Failed" (the session fallback answers for a bad bearer token).
    assert f"token rejected by {live_server.url} (HTTP 40" in result.stderr
    assert len(agent_home.pending()) == 1

    fixed = run_agent("configure", "--server", live_server.url, "--token", token)
    assert fixed.returncode == 0, fixed.output
    assert agent_home.pending() == []
    assert Upload.objects.filter(campaign=campaign, filename=PERFMON.name).exists()


def test_a_watched_folder_is_uploaded_by_the_zipapp(
    live_server: Any, study: tuple[Campaign, str], run_agent: AgentRunner, zipapp_path: Path, tmp_path: Path
) -> None:
    results = tmp_path / "results"
    results.mkdir()
    shutil.copy(PERFMON, results / "server.csv")
    shutil.copy(FIXTURES / "perfmon_csv" / "rajitharul_perfmon_SriLanka_1.2MB.csv", results / "server2.csv")
    (results / "ignored.txt").write_text("x")
    args = [
        "watch",
        str(results),
        *connect(live_server.url, study),
        "--pattern",
        "*.csv",
        "--once",
        "--settle",
        "0",
    ]
    assert run_agent(*args, zipapp=zipapp_path).returncode == 0
    assert run_agent(*args, zipapp=zipapp_path).returncode == 0
    assert sorted(Upload.objects.filter(campaign=study[0]).values_list("filename", flat=True)) == [
        "server.csv",
        "server2.csv",
    ]


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never answers (a server hung mid-request)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    try:
        yield listener.getsockname()[1]
    finally:
        listener.close()


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_an_agent_killed_mid_send_loses_nothing(
    live_server: Any,
    study: tuple[Campaign, str],
    run_agent: AgentRunner,
    agent_home: AgentHome,
    silent_port: int,
) -> None:
    hung = subprocess.Popen(
        [*agent_command(), "upload", "--no-inventory", str(PERFMON)]
        + connect(f"http://127.0.0.1:{silent_port}", study),
        env=agent_home.env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for(lambda: agent_home.pending(), timeout=20)
    time.sleep(0.5)
    hung.send_signal(signal.SIGKILL)
    hung.wait()
    assert len(agent_home.pending()) == 1

    flushed = run_agent("flush", "--server", live_server.url, "--token", study[1])
    assert flushed.returncode == 0, flushed.output
    assert Upload.objects.filter(campaign=study[0], filename=PERFMON.name).count() == 1


def test_sampling_survives_the_server_stopping_mid_run(
    server_process: ServerProcess,
    study: tuple[Campaign, str],
    worker_process: subprocess.Popen[bytes],
    agent_home: AgentHome,
) -> None:
    pytest.importorskip("psutil")
    server_process.start()
    sampler = subprocess.Popen(
        [*agent_command(), "sample", *connect(server_process.url, study), "--run", "outage", "--host", "FS01"]
        + ["--counters", "cpu", "--interval", "0.2", "--duration", "8", "--batch", "0.5"],
        env=agent_home.env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for(lambda: Upload.objects.filter(campaign=study[0]).exists(), timeout=20)
    server_process.stop()
    wait_for(lambda: len(agent_home.pending()) >= 2, timeout=20)
    server_process.start()
    _, err = sampler.communicate(timeout=60)
    assert sampler.returncode == 0, err
    # Refused once it is down; reset when the stop catches a request in flight.
    assert re.search(r"server unreachable \((connection refused|Connection reset by peer)\)", err), err
    assert "server reachable again" in err
    assert agent_home.pending() == []

    uploads = finished(study[0], count=Upload.objects.filter(campaign=study[0]).count())
    assert all(u.status == Upload.Status.STORED for u in uploads), [u.error for u in uploads]
    cpu = CounterSeries.objects.get(host__name="FS01", object="Processor", counter="% Processor Time")
    times = sorted(CounterSample.objects.filter(series=cpu).values_list("time", flat=True))
    # Every tick of the 8 s run arrived, outage included: no gap longer than two ticks.
    assert len(times) >= 38
    assert max(b - a for a, b in itertools.pairwise(times)) < timedelta(seconds=0.5)

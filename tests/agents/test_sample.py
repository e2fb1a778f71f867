"""Live sampling: canonical perfmon names, batches on a schedule, typeperf lines, psutil optional."""

from __future__ import annotations

import math
import os
import stat
import sys
from pathlib import Path

import pytest
from headroom_agent.cli import main
from headroom_agent.sample import Sampler, TypeperfParser, counter_path, utc_stamp

from tests.agents.conftest import AgentHome, Sink

pytest.importorskip("psutil")


def test_it_names_counters_as_perfmon_does() -> None:
    assert (
        counter_path("FS01", "Processor", "_Total", "% Processor Time")
        == "\\\\FS01\\Processor(_Total)\\% Processor Time"
    )
    assert counter_path("FS01", "Memory", "", "Available MBytes") == "\\\\FS01\\Memory\\Available MBytes"


def test_it_reads_the_canonical_counters_the_capacity_view_uses() -> None:
    sampler = Sampler("FS01", ["cpu", "mem", "disk", "net"])
    sampler.prime()
    readings = dict(sampler.read())
    for path in (
        "\\\\FS01\\Processor(_Total)\\% Processor Time",
        "\\\\FS01\\Memory\\Available MBytes",
        "\\\\FS01\\Memory\\% Committed Bytes In Use",
        "\\\\FS01\\Network Interface(_Total)\\Bytes Total/sec",
    ):
        assert path in readings
        assert math.isfinite(readings[path])
    assert 0 <= readings["\\\\FS01\\Processor(_Total)\\% Processor Time"] <= 100
    assert readings["\\\\FS01\\Memory\\Available MBytes"] > 0
    if "\\\\FS01\\PhysicalDisk(_Total)\\Disk Transfers/sec" in readings:
        assert readings["\\\\FS01\\PhysicalDisk(_Total)\\Disk Transfers/sec"] >= 0


def test_it_reads_only_the_groups_asked_for() -> None:
    sampler = Sampler("H", ["cpu"])
    sampler.prime()
    assert [path for path, _ in sampler.read()] == ["\\\\H\\Processor(_Total)\\% Processor Time"]


def test_it_turns_typeperf_lines_into_samples() -> None:
    parser = TypeperfParser()
    stamp = "2024-05-01T10:00:00.000Z"
    lines = [
        "",
        '"(PDH-CSV 4.0)","\\\\FS01\\Processor(_Total)\\% Processor Time","\\\\FS01\\LogicalDisk(C:)\\Avg. Disk Queue Length"',
        '"05/01/2024 12:00:00.123","12.5"," "',
        "Exiting, please wait...",
        "The command completed successfully.",
    ]
    samples = [sample for line in lines for sample in parser.feed(line, stamp)]
    assert samples == [
        {"time": stamp, "counter": "\\\\FS01\\Processor(_Total)\\% Processor Time", "value": 12.5}
    ]


def test_timestamps_are_utc_with_milliseconds() -> None:
    stamp = utc_stamp()
    assert stamp.endswith("Z")
    assert len(stamp) == len("2024-05-01T10:00:00.000Z")


def test_it_sends_batches_on_schedule(
    agent_home: AgentHome, sink: Sink, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["sample", "--server", sink.url, "--token", "t", "--campaign", "c", "--run", "r1", "--host", "FS01"]
        + [
            "--role",
            "server",
            "--scenario",
            "av=on",
            # Ticks a quarter second apart: a stall of one interval (a busy CI machine
            # fsyncing the spool) would skip a tick, and this test counts them.
            "--interval",
            "0.25",
            "--duration",
            "2.5",
            "--batch",
            "1.1",
        ]
    )
    assert code == 0
    batches = [r.json() for r in sink.posts("/api/v1/samples")]
    assert 2 <= len(batches) <= 4
    first = batches[0]
    assert (first["campaign"], first["host"], first["role"], first["run"]) == ("c", "FS01", "server", "r1")
    assert first["scenario"] == {"av": "on"}
    times = {s["time"] for b in batches for s in b["samples"]}
    assert 8 <= len(times) <= 10
    assert all(s["counter"].startswith("\\\\FS01\\") for b in batches for s in b["samples"])
    assert agent_home.pending() == []
    assert "10 ticks" in capsys.readouterr().err


def test_batches_wait_in_the_spool_while_the_server_is_away(
    agent_home: AgentHome, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.ports import free_port

    code = main(
        ["sample", "--server", f"http://127.0.0.1:{free_port()}", "--token", "t", "--campaign", "c"]
        + ["--run", "r1", "--interval", "0.1", "--duration", "0.5", "--batch", "0.2", "--counters", "cpu"]
    )
    assert code == 75
    assert "server unreachable (connection refused)" in capsys.readouterr().err
    assert len(agent_home.pending()) >= 2


@pytest.mark.skipif(sys.platform == "win32", reason="uses a shell script standing in for typeperf.exe")
def test_typeperf_counters_are_sampled_too(
    agent_home: AgentHome, sink: Sink, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "bin" / "typeperf"
    fake.parent.mkdir()
    fake.write_text(
        "#!/bin/sh\n"
        'echo \'"(PDH-CSV 4.0)","\\\\\\\\FS01\\\\SMB Server Shares(_Total)\\\\Avg. sec/Data Request"\'\n'
        'while true; do echo \'"05/01/2024 12:00:00.123","0.004"\'; sleep 0.1; done\n'
    )
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    code = main(
        [
            "sample",
            "--server",
            sink.url,
            "--token",
            "t",
            "--campaign",
            "c",
            "--run",
            "r1",
            "--counters",
            "none",
        ]
        + [
            "--typeperf",
            "\\SMB Server Shares(_Total)\\Avg. sec/Data Request",
            "--duration",
            "1",
            "--interval",
            "1",
        ]
    )
    assert code == 0
    samples = [s for r in sink.posts("/api/v1/samples") for s in r.json()["samples"]]
    assert samples
    assert {s["counter"] for s in samples} == {"\\\\FS01\\SMB Server Shares(_Total)\\Avg. sec/Data Request"}
    assert {s["value"] for s in samples} == {0.004}


def test_without_psutil_it_says_how_to_get_it(
    agent_home: AgentHome, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "psutil", None)
    code = main(["sample", "--server", "http://localhost:1", "--token", "t", "--campaign", "c", "--run", "r"])
    assert code == 2
    assert "pip install 'headroom-agent[sampling]'" in capsys.readouterr().err

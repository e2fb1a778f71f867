"""``headroom-agent upload x.blg``: relog makes the CSV on Windows; elsewhere the agent says what to run."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from headroom_agent.cli import main

from tests.agents.conftest import AgentHome, Sink
from tests.agents.test_upload import form_parts
from tests.blg_layout import blg_first_buffer
from tests.paths import FIXTURES, real_fixture

CSV = FIXTURES / "perfmon_csv" / "narmadha_DataCollector01_LogicalDisk_IST.csv"


@pytest.fixture(params=["documented-layout", "real-data-collector-set-log"])
def blg(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """A ``DataCollector01.blg``: a header built from the documented layout, or the real sample."""
    path = tmp_path / "DataCollector01.blg"
    if request.param == "documented-layout":
        path.write_bytes(blg_first_buffer())
    else:
        shutil.copyfile(real_fixture("perfmon_blg/txrx_BasicPerfCounters.blg"), path)
    return path


@pytest.fixture
def stand_in_relog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ``relog`` on PATH that writes a real perfmon CSV to its ``-o`` and logs its arguments."""
    folder = tmp_path / "bin"
    folder.mkdir()
    log = tmp_path / "relog-args.txt"
    script = folder / "relog"
    script.write_text(
        f"#!{sys.executable}\n"
        "import shutil, sys\n"
        f"open({str(log)!r}, 'w').write('\\n'.join(sys.argv[1:]))\n"
        f"shutil.copyfile({str(CSV)!r}, sys.argv[sys.argv.index('-o') + 1])\n"
    )
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    return log


def test_on_windows_the_csv_relog_makes_is_sent_and_removed(
    agent_home: AgentHome, sink: Sink, blg: Path, stand_in_relog: Path, monkeypatch, capsys
) -> None:
    monkeypatch.setattr(sys, "platform", "win32")
    # --timezone: the agent would otherwise ask the (absent) Windows registry for the local zone.
    code = main(
        ["upload", str(blg), "--server", sink.url, "--token", "t", "--campaign", "c", "--timezone", "UTC"]
    )
    monkeypatch.undo()
    assert code == 0
    args = stand_in_relog.read_text().split("\n")
    assert args[:3] == [str(blg), "-f", "csv"] and args[3] == "-o"
    target = Path(args[4])
    assert target.name == "DataCollector01.csv"
    assert not target.exists() and not target.parent.exists()  # the temporary CSV is gone
    [request] = sink.posts("/api/v1/uploads")
    assert form_parts(request)["file"] == ("DataCollector01.csv", CSV.read_bytes())
    assert (
        "binary perfmon log converted with relog; sending it as DataCollector01.csv"
        in capsys.readouterr().out
    )


def test_elsewhere_it_says_what_to_run_on_windows_and_sends_nothing(
    agent_home: AgentHome, sink: Sink, blg: Path, capsys
) -> None:
    code = main(["upload", str(blg), "--server", sink.url, "--token", "t", "--campaign", "c"])
    assert code != 0
    assert sink.posts("/api/v1/uploads") == []
    assert "`relog DataCollector01.blg -f csv -o DataCollector01.csv`" in capsys.readouterr().err

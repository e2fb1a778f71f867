"""Uploads: one gzipped multipart request per file, built once, and --wait showing the outcome."""

from __future__ import annotations

import email
import json
from pathlib import Path

import pytest
from headroom_agent.cli import main
from headroom_agent.spool import Spool
from headroom_agent.upload import UploadMeta, prepare

from tests.agents.conftest import AgentHome, Received, Sink
from tests.paths import FIXTURES

PERFMON = FIXTURES / "perfmon_csv" / "narmadha_DataCollector01_LogicalDisk_IST.csv"


def form_parts(request: Received) -> dict[str, tuple[str | None, bytes]]:
    """``{field: (filename, content)}`` of a multipart body."""
    head = f"Content-Type: {request.headers['Content-Type']}\r\n\r\n".encode()
    message = email.message_from_bytes(head + request.body)
    parts = {}
    for part in message.get_payload():
        assert isinstance(part, email.message.Message)
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        assert isinstance(name, str) and isinstance(payload, bytes)
        parts[name] = (part.get_filename(), payload)
    return parts


def test_it_sends_the_file_and_its_tags_gzipped(agent_home: AgentHome, sink: Sink) -> None:
    code = main(
        ["upload", str(PERFMON), "--server", sink.url, "--token", "t", "--campaign", "fs-study"]
        + ["--scenario", "smb_dialect=3.02", "av=off", "--host", "FS01", "--role", "server", "--step", "40"]
        + ["--run", "r1", "--timezone", "Asia/Kolkata"]
    )
    assert code == 0
    [request] = sink.posts("/api/v1/uploads")
    assert request.headers["Content-Encoding"] == "gzip"
    assert len(request.raw) < len(request.body)
    parts = form_parts(request)
    assert parts["file"] == (PERFMON.name, PERFMON.read_bytes())
    assert parts["campaign"][1] == b"fs-study"
    assert json.loads(parts["scenario"][1]) == {"av": "off", "smb_dialect": "3.02"}
    assert (parts["host"][1], parts["role"][1], parts["step"][1]) == (b"FS01", b"server", b"40")
    assert (parts["run"][1], parts["timezone"][1], parts["kind"][1]) == (b"r1", b"Asia/Kolkata", b"auto")
    assert agent_home.pending() == []


def test_files_may_follow_the_scenario_pairs_as_the_uploads_page_writes_them(
    agent_home: AgentHome, sink: Sink
) -> None:
    # The dashboard's example: headroom-agent upload --wait --scenario smb_dialect=3.02 av=off FILE...
    other = FIXTURES / "perfmon_csv" / "waflia_DataCollector01_ruRU_cp1251.csv"
    code = main(
        ["upload", "--server", sink.url, "--token", "t", "--campaign", "c"]
        + ["--scenario", "smb_dialect=3.02", "av=off", str(PERFMON), str(other)]
    )
    assert code == 0
    sent = [form_parts(request) for request in sink.posts("/api/v1/uploads")]
    assert [parts["file"][0] for parts in sent] == [PERFMON.name, other.name]
    assert all(json.loads(parts["scenario"][1]) == {"av": "off", "smb_dialect": "3.02"} for parts in sent)


def test_a_scenario_flag_without_a_pair_is_a_usage_error(
    agent_home: AgentHome, sink: Sink, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["upload", "--server", sink.url, "--token", "t", "--campaign", "c", "--scenario", str(PERFMON)])
    assert stopped.value.code == 2
    assert f"--scenario takes KEY=VALUE pairs, e.g. --scenario smb_dialect=3.02; got {str(PERFMON)!r}" in (
        capsys.readouterr().err
    )
    assert sink.posts("/api/v1/uploads") == []


def test_preparing_a_file_spools_a_gzipped_request_per_call(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool")
    meta = UploadMeta(campaign="c", scenario={}, host="h", role="client")
    first, second = prepare(spool, PERFMON, meta), prepare(spool, PERFMON, meta)
    assert first.body_size > 0
    assert first.envelope.headers["Content-Encoding"] == "gzip"
    assert first.envelope.source == str(PERFMON.resolve())
    assert second.id != first.id


def test_it_prints_each_upload_id(
    agent_home: AgentHome, sink: Sink, capsys: pytest.CaptureFixture[str]
) -> None:
    sink.answer(202, {"id": 41, "status": "queued"})
    sink.answer(200, {"id": 7, "status": "stored", "duplicate": True})
    assert (
        main(["upload", str(PERFMON), str(PERFMON), "--server", sink.url, "--token", "t", "--campaign", "c"])
        == 0
    )
    out = capsys.readouterr().out.splitlines()
    assert out == [
        f"upload 41 queued {PERFMON.name}",
        f"upload 7 stored {PERFMON.name} (duplicate of an earlier upload)",
    ]


def test_wait_shows_the_parser_error_verbatim(
    agent_home: AgentHome, sink: Sink, capsys: pytest.CaptureFixture[str]
) -> None:
    message = "expected a number in column '\\\\FS01\\Memory\\Available MBytes', got 'n/a'"
    sink.answer(202, {"id": 5, "status": "queued"})
    sink.answer(200, {"id": 5, "status": "parsing"})
    sink.answer(
        200,
        {
            "id": 5,
            "status": "failed",
            "parser": "perfmon_csv",
            "error": {"message": message, "line": 3, "column": 7},
        },
    )
    code = main(["upload", str(PERFMON), "--server", sink.url, "--token", "t", "--campaign", "c", "--wait"])
    assert code == 1
    out = capsys.readouterr().out
    assert "upload 5 failed (parser perfmon_csv, line 3, column 7)" in out
    assert f"\n  {message}\n" in out


def test_wait_reports_rows_stored(
    agent_home: AgentHome, sink: Sink, capsys: pytest.CaptureFixture[str]
) -> None:
    sink.answer(202, {"id": 5, "status": "queued"})
    sink.answer(200, {"id": 5, "status": "stored", "rows": 1234, "parser": "perfmon_csv", "error": None})
    assert (
        main(["upload", str(PERFMON), "--server", sink.url, "--token", "t", "--campaign", "c", "--wait"]) == 0
    )
    assert "upload 5 stored: 1,234 rows (parser perfmon_csv)" in capsys.readouterr().out


def test_a_refused_upload_says_why_and_leaves_no_copy(
    agent_home: AgentHome, sink: Sink, capsys: pytest.CaptureFixture[str]
) -> None:
    sink.answer(404, {"error": {"code": "not_found", "message": "campaign 'nope' not found"}})
    assert main(["upload", str(PERFMON), "--server", sink.url, "--token", "t", "--campaign", "nope"]) == 1
    assert "rejected by the server: campaign 'nope' not found" in capsys.readouterr().err
    assert agent_home.pending() == []
    assert agent_home.rejected() == []


def test_a_missing_file_is_named(
    agent_home: AgentHome, sink: Sink, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["upload", "nope.csv", "--server", sink.url, "--token", "t", "--campaign", "c"]) == 2
    assert "nope.csv: no such file" in capsys.readouterr().err
    assert sink.requests == []


def test_a_redirect_is_not_followed(
    agent_home: AgentHome, sink: Sink, capsys: pytest.CaptureFixture[str]
) -> None:
    sink.answer(301, {})
    assert main(["upload", str(PERFMON), "--server", sink.url, "--token", "t", "--campaign", "c"]) == 1
    assert "redirected to" in capsys.readouterr().err
    assert len(sink.requests) == 1

"""The agent names this machine's time zone (IANA) and sends it with uploads unless told otherwise."""

from __future__ import annotations

import json
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from headroom_agent import localzone
from headroom_agent.cli import main

from tests.agents.conftest import AgentHome, Sink
from tests.agents.test_upload import form_parts
from tests.paths import FIXTURES

LOG = FIXTURES / "robocopy" / "andrew_robocopy_utf16_NFL.log"


def test_every_windows_zone_maps_to_a_zone_the_server_accepts() -> None:
    assert len(localzone.WINDOWS) >= 90
    for windows, iana in localzone.WINDOWS.items():
        assert ZoneInfo(iana).key == iana, windows


@pytest.mark.parametrize(
    ("windows", "iana"),
    [
        ("W. Europe Standard Time", "Europe/Berlin"),
        ("China Standard Time", "Asia/Shanghai"),
        ("India Standard Time", "Asia/Kolkata"),
        ("Pacific Standard Time", "America/Los_Angeles"),
        ("Eastern Standard Time", "America/New_York"),
        ("GMT Standard Time", "Europe/London"),
        ("Tokyo Standard Time", "Asia/Tokyo"),
        ("AUS Eastern Standard Time", "Australia/Sydney"),
        ("W. Europe Standard Time_dstoff", "Europe/Berlin"),  # tzutil /g with DST adjustment off
        ("Mars Standard Time", ""),
    ],
)
def test_windows_zone_ids_map_to_iana_names(windows: str, iana: str) -> None:
    assert localzone.from_windows(windows) == iana


def test_posix_reads_tz_then_localtime_then_etc_timezone(tmp_path: Path) -> None:
    etc = tmp_path / "etc"
    etc.mkdir()
    assert localzone.posix_zone({}, etc) == ""
    (etc / "timezone").write_text("Europe/Berlin\n")
    assert localzone.posix_zone({}, etc) == "Europe/Berlin"
    (etc / "localtime").symlink_to("/usr/share/zoneinfo/Asia/Kolkata")
    assert localzone.posix_zone({}, etc) == "Asia/Kolkata"
    assert localzone.posix_zone({"TZ": ":America/Los_Angeles"}, etc) == "America/Los_Angeles"
    assert localzone.posix_zone({"TZ": "/usr/share/zoneinfo/posix/Asia/Shanghai"}, etc) == "Asia/Shanghai"
    # A POSIX rule or an unknown name is not a zone the server knows: send nothing rather than guess.
    assert localzone.posix_zone({"TZ": "CET-1CEST"}, etc) == ""
    assert localzone.posix_zone({"TZ": "Not/AZone"}, etc) == ""


def upload_zone(sink: Sink, *extra: str) -> bytes | None:
    code = main(["upload", str(LOG), "--server", sink.url, "--token", "t", "--campaign", "c", *extra])
    assert code == 0
    part = form_parts(sink.posts("/api/v1/uploads")[-1]).get("timezone")
    return part[1] if part else None


def test_an_upload_sends_the_machines_zone_unless_timezone_overrides_it(
    agent_home: AgentHome, sink: Sink, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TZ", "Asia/Kolkata")
    assert upload_zone(sink) == b"Asia/Kolkata"
    assert upload_zone(sink, "--timezone", "Europe/Berlin") == b"Europe/Berlin"
    monkeypatch.setenv("TZ", "Not/AZone")
    assert upload_zone(sink) is None


def test_campaign_create_posts_the_campaign_and_reports_the_answer(
    agent_home: AgentHome, sink: Sink, capsys: pytest.CaptureFixture[str]
) -> None:
    connect = ["--server", sink.url, "--token", "t"]
    sink.answer(
        201,
        {
            "slug": "fs-cap",
            "name": "FS capacity",
            "project": "lab",
            "dimensions": ["smb_dialect", "av"],
            "url": f"{sink.url}/campaigns/fs-cap/",
        },
    )
    args = ["campaign", "create", *connect, "--slug", "fs-cap", "--name", "FS capacity"]
    code = main([*args, "--dimension", "smb_dialect", "--dimension", "av"])
    assert code == 0
    [request] = sink.posts("/api/v1/campaigns")
    assert json.loads(request.body) == {
        "slug": "fs-cap",
        "name": "FS capacity",
        "description": "",
        "dimensions": ["smb_dialect", "av"],
    }
    out = capsys.readouterr().out
    assert "campaign fs-cap created in project lab (dimensions: smb_dialect, av)" in out
    sink.answer(
        409,
        {"error": {"code": "slug_taken", "message": "slug 'fs-cap' is not available; choose another slug"}},
    )
    assert main(args) == 1
    assert "HTTP 409" in capsys.readouterr().err
    assert agent_home.pending() == []  # never spooled

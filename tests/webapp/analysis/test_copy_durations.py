"""A copy's duration is its wall clock, Ended - Started (issue 20 item 5).

robocopy's "Times: Total" adds up the time of every /MT thread: the issue's
/MT:8 log ran from 04:43:32 to 04:52:35 (543 s) but prints a Total of
1:20:59 (4,859 s), and the compare view and the shared overview called it
243x slower than a 20 s copy. The real /MT:16 fixture ran 51 s (11:08:15 to
11:09:06) with a Total of 0:05:15 (315 s); the real single-threaded
``andrew`` log ran 9 s with a Total of 8 s.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.ingest import ingest_bytes, ingest_path
from tests.paths import FIXTURES
from webapp.analysis.compare import campaign_compare
from webapp.core.models import Campaign, Run, Scenario
from webapp.sharing.studies import study_tables

ROBOCOPY = FIXTURES / "robocopy"
MT16 = ROBOCOPY / "ripvannwinkler_robocopy_NFL_MT16.log"
ANDREW = ROBOCOPY / "andrew_robocopy_utf16_NFL.log"

LOG = """-------------------------------------------------------------------------------
   ROBOCOPY     ::     Robust File Copy for Windows
-------------------------------------------------------------------------------

  Started : Tuesday, March 3, 2026 {started}
   Source : D:\\data\\
     Dest : \\\\fs01\\data\\

    Files : *.*

  Options : *.* /S /E /DCOPY:DA /COPY:DAT {threads}/R:1 /W:1

------------------------------------------------------------------------------

------------------------------------------------------------------------------

               Total    Copied   Skipped  Mismatch    FAILED    Extras
    Dirs :        10        10         0         0         0         0
   Files :      1000      1000         0         0         0         0
   Bytes :   10.00 g   10.00 g         0         0         0         0
   Times :   {total}   0:00:20                       0:00:00   0:00:00
   Ended : Tuesday, March 3, 2026 {ended}
"""


def _log(started: str, ended: str, total: str, threads: str = "") -> bytes:
    return LOG.format(started=started, ended=ended, total=total, threads=threads).encode()


def _ingest(campaign: Campaign, data: bytes, name: str, technique: str) -> None:
    upload = ingest_bytes(
        campaign,
        data,
        filename=name,
        scenario={"technique": technique},
        timezone="UTC",
    )
    assert upload.status == "stored", upload.error


@pytest.fixture
def issue_logs(campaign: Campaign) -> Campaign:
    """The issue's /MT:8 copy (543 s, Times: Total 4,859 s) against a 20 s single-threaded one."""
    _ingest(campaign, _log("4:43:32 AM", "4:52:35 AM", "1:20:59", "/MT:8 "), "mt8.log", "mt8")
    _ingest(campaign, _log("5:00:00 AM", "5:00:20 AM", "0:00:20"), "single.log", "single")
    return campaign


def _row(body: dict, metric: str, technique: str) -> dict:
    found = [r for r in body["results"] if r["metric"] == metric and r["dims"]["technique"] == technique]
    assert len(found) == 1, found
    return found[0]


def test_a_copy_run_spans_its_started_to_its_ended_line(campaign):
    upload = ingest_path(campaign, MT16, scenario={"technique": "robocopy"}, timezone="America/Chicago")
    assert upload.status == "stored", upload.error
    run = Run.objects.get(campaign=campaign, tool="robocopy")
    # Friday, July 24, 2026 11:08:15 AM -> 11:09:06 AM, Chicago (CDT, UTC-5).
    assert run.started_at == datetime(2026, 7, 24, 16, 8, 15, tzinfo=UTC)
    assert run.ended_at == datetime(2026, 7, 24, 16, 9, 6, tzinfo=UTC)
    assert (run.ended_at - run.started_at).total_seconds() == 51


def test_compare_calls_the_mt_copy_543_s_and_27_times_the_20_s_one(issue_logs):
    baseline = Scenario.objects.get(campaign=issue_logs, extras__technique="single")
    body = campaign_compare(issue_logs, baseline)
    duration = _row(body, "elapsed_s", "mt8")
    assert duration["mean"] == 543
    assert duration["factor"] == pytest.approx(543 / 20)  # 27.15, never 4,859 / 20 = 243
    assert duration["headline"] and duration["metric_label"] == "elapsed_s: duration (Ended - Started)"
    threads = _row(body, "time.total_s", "mt8")
    assert threads["mean"] == 4859 and threads["factor"] == pytest.approx(4859 / 20)
    assert not threads["headline"] and threads["group"] == "other"
    assert "summed over /MT threads" in threads["metric_label"]


def test_the_shared_overview_shows_the_wall_clock_duration(issue_logs):
    (table,) = study_tables(issue_logs)
    # Cells are marked with their API field for the display oracle; the reader sees their text.
    rows = {r["metric"]: [getattr(cell, "text", cell) for cell in r["cells"]] for r in table["rows"]}
    assert table["columns"] == ["technique mt8", "technique single"]
    assert rows["duration (Ended - Started)"] == ["543 s", "20.0 s (0.04\u00d7)"]
    assert not [name for name in rows if "summed over /MT threads" in name]


def test_real_logs_compare_by_wall_clock_not_by_summed_thread_time(campaign):
    for path, technique, zone in ((ANDREW, "single", "America/New_York"), (MT16, "mt16", "America/Chicago")):
        upload = ingest_path(campaign, path, scenario={"technique": technique}, timezone=zone)
        assert upload.status == "stored", upload.error
    baseline = Scenario.objects.get(campaign=campaign, extras__technique="single")
    body = campaign_compare(campaign, baseline)
    headline = {r["metric"] for r in body["results"] if r["headline"]}
    assert headline == {"elapsed_s", "speed.bytes_per_s"}
    duration = _row(body, "elapsed_s", "mt16")
    assert duration["factor"] == pytest.approx(51 / 9)  # not 315 / 8 = 39.4
    speed = _row(body, "speed.bytes_per_s", "mt16")
    assert speed["factor"] == pytest.approx(1_915_409_756 / 334_750_079)

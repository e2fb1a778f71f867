"""FSCT curves from the real fixture files through the real ingest path: figures read off the files by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.factories import make_campaign
from tests.ingest import ingest_bytes
from webapp.analysis.fsct_curves import fsct_curves
from webapp.core.models import Campaign

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "fsct"
OVERLOAD = (FIXTURES / "fsct_overload_top_tabs.txt").read_bytes()
CLEAN = (FIXTURES / "fsct_clean_100-1000.txt").read_bytes()
# The overload file's throughput column, 100..1,000 users (scenarios/s).
THROUGHPUT = (8.86, 17.69, 26.51, 35.30, 44.02, 52.61, 61.04, 68.93, 74.12, 75.06)


def ingest(campaign: Campaign, data: bytes, dims: dict[str, str], **meta: object) -> None:
    upload = ingest_bytes(campaign, data, kind="fsct", scenario=dims, filename="fsct.txt", **meta)
    assert upload.status == "stored", upload.error


def repeated(data: bytes) -> bytes:
    """The overload run again a day later, 9.06 scenarios/s at 100 users and no overload at 900."""
    text = data.decode().replace("2015-07-02", "2015-07-03")
    text = text.replace("100\t0\tno\t8.86", "100\t0\tno\t9.06").replace("900\t2.5\tyes", "900\t0\tno")
    return text.encode()


@pytest.fixture
def campaign(db) -> Campaign:
    return make_campaign()


def by_users(curve, users: int):
    return next(s for s in curve.steps if s.users == users)


def test_it_reads_throughput_response_times_and_the_overload_step_off_the_file(campaign):
    ingest(campaign, OVERLOAD, {"av": "on"})
    [curve] = fsct_curves(campaign)
    assert [s.users for s in curve.steps] == list(range(100, 1001, 100))
    assert [s.throughput_sps for s in curve.steps] == pytest.approx(THROUGHPUT)
    assert [s.overload_pct for s in curve.steps] == [0, 0, 0, 0, 0, 0, 0, 0, 2.5, 14.8]
    assert [s.overloaded for s in curve.steps] == [False] * 8 + [True, True]
    assert [s.errors for s in curve.steps] == [0, 0, 0, 0, 0, 0, 0, 1, 3, 41]
    assert curve.operations == ["Explorer download", "Explorer upload", "Word open and save"]
    assert by_users(curve, 900).responses == [
        {"operation": "Explorer download", "ms": 580.0},
        {"operation": "Explorer upload", "ms": 840.0},
        {"operation": "Word open and save", "ms": 1320.0},
    ]
    body = curve.as_dict()
    assert body["overload_users"] == 900 and body["last_good_users"] == 800
    assert body["overload_text"] == "overloaded at 900 users; 800 users the last step without"
    assert body["runs_used"] == 1 and body["hosts"] == 1 and body["combined"] == ""


def test_a_run_that_never_overloads_has_no_overload_step(campaign):
    ingest(campaign, CLEAN, {"av": "off"})
    [curve] = fsct_curves(campaign)
    body = curve.as_dict()
    assert body["overload_users"] is None and body["last_good_users"] is None
    assert body["overload_text"] == "no overload up to 1,000 users"
    step = by_users(curve, 500)
    assert step.throughput_sps == pytest.approx(44.31)
    assert step.errors_pct == 0.0 and step.overload_pct == 0.0
    assert [r["ms"] for r in step.responses] == [47.6, 334.1, 477.9, 759.8]  # DirectoryBrowse .. WordOpenSave


def test_repeated_runs_average_per_user_count_and_any_overloaded_run_marks_the_step(campaign):
    ingest(campaign, OVERLOAD, {"av": "on"}, run="fsct-1")
    ingest(campaign, repeated(OVERLOAD), {"av": "on"}, run="fsct-2")
    [curve] = fsct_curves(campaign)
    assert curve.as_dict()["runs_used"] == 2
    first = by_users(curve, 100)
    assert first.throughput_sps == pytest.approx((8.86 + 9.06) / 2) and first.runs == 2
    step = by_users(curve, 900)
    assert step.overload_pct == pytest.approx(1.25)
    assert step.overloaded is True and step.runs_overloaded == 1
    assert curve.as_dict()["overload_users"] == 900


def test_two_hosts_in_one_run_sum_their_throughput_and_average_their_response_times(campaign):
    ingest(campaign, OVERLOAD, {"av": "on"}, host="CTRL1", run="pair")
    other = OVERLOAD.decode().replace("Server:\tFILE3", "Server:\tFILE3 (second controller)").encode()
    ingest(campaign, other, {"av": "on"}, host="CTRL2", run="pair")
    [curve] = fsct_curves(campaign)
    body = curve.as_dict()
    assert body["runs_used"] == 1 and body["hosts"] == 2 and body["combined"] == "any, mean, sum"
    step = by_users(curve, 100)
    assert step.throughput_sps == pytest.approx(2 * 8.86)
    assert step.errors == 0 and step.overload_pct == 0.0
    assert step.responses[1] == {"operation": "Explorer upload", "ms": 420.0}
    assert by_users(curve, 1000).errors == 82


def test_scenarios_without_fsct_results_are_left_out(campaign):
    assert fsct_curves(campaign) == []
    ingest(campaign, OVERLOAD, {"av": "on"})
    ingest(campaign, CLEAN, {"av": "off"})
    assert [c.dims for c in fsct_curves(campaign)] == [{"av": "on"}, {"av": "off"}]

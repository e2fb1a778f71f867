"""Computed remarks: spiky load, a knee, IOPS-CPU coupling and the cost against a baseline, by hand."""

from __future__ import annotations

import pytest

from tests.factories import make_campaign, make_user
from tests.webapp.analysis.studies import add_run
from webapp.analysis.remarks import knee

pytestmark = pytest.mark.django_db

CPU = "\\Processor(_Total)\\% Processor Time"
IOPS = "\\PhysicalDisk(_Total)\\Disk Transfers/sec"


def test_a_knee_is_where_two_lines_beat_one():
    # 10 per 100 users up to 300, then 30 per 100 users: the knee is at 300 users, 3x as steep.
    xs = [100.0, 200.0, 300.0, 400.0, 500.0, 600.0]
    found = knee(xs, [10, 20, 30, 60, 90, 120])
    assert found is not None
    assert found[0] == 300.0 and found[1] == pytest.approx(0.1) and found[2] == pytest.approx(0.3)
    assert knee(xs, [10, 20, 30, 40, 50, 60]) is None  # a straight line has no knee


def test_remarks_are_computed_from_stored_samples_and_link_to_their_evidence(client):
    campaign = make_campaign()
    # One step's samples flat at the level: the maximum equals the average, so no spike remark here.
    add_run(
        campaign,
        {"av": "off"},
        {CPU: (10, 20, 30, 60, 90), IOPS: (250, 500, 750, 1500, 2250)},  # 25 IOPS per CPU %
    )
    add_run(campaign, {"av": "on"}, {CPU: (20, 40, 60, 80, 95)}, host="FS02", day=1)
    client.force_login(make_user(campaign.project))
    body = client.get(f"/api/v1/campaigns/{campaign.slug}/capacity").json()
    off, on = sorted(body["scenarios"], key=lambda s: s["dims"]["av"] != "off")
    kinds = {r["kind"]: r for r in off["remarks"]}
    assert kinds["knee"]["text"].startswith("Knee at 300 users: the average rises 3.0x as fast above it")
    assert kinds["knee"]["link"] == "#steps-table"
    assert "R² 1.00 over 5 steps (25 IOPS per unit)" in kinds["iops_cpu"]["text"]
    assert kinds["iops_cpu"]["link"].endswith(f"/traces/?run={off['run_ids'][0]}")
    assert "spiky" not in kinds
    # av=off reaches 80 % at 400 + 20/30 x 100 = 466.7 users, av=on at exactly 400: -14.3 % of capacity.
    (cost,) = [r for r in on["remarks"] if r["kind"] == "cost"]
    assert cost["text"].startswith("av=on vs av=off: -14 % of capacity")
    (comparison,) = body["comparisons"]
    assert comparison["difference_pct"] == pytest.approx((400 - 1400 / 3) / (1400 / 3) * 100)

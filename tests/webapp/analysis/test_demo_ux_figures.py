"""The "Logon load 2015" demo, ingested through the real pipeline: capacity by logon time and by CPU, and the
limit table naming whichever binds first (the figures ``webapp/demo/logon_load.py`` states)."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from tests.factories import make_user
from webapp.core.models import Campaign, Upload
from workers.tasks import ingest_upload, refresh_rollups

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo_logon(client) -> Campaign:
    call_command("load_demo", "--campaign", "demo-logon")
    for upload_id in Upload.objects.values_list("pk", flat=True):
        ingest_upload.apply(args=(upload_id,))
    assert set(Upload.objects.values_list("status", flat=True)) == {"stored"}
    refresh_rollups.apply()
    campaign = Campaign.objects.get(slug="demo-logon")
    client.force_login(make_user(campaign.project))
    return campaign


def _load_runs(body: dict) -> dict[str, dict]:
    return {s["dims"]["smb_dialect"]: s for s in body["scenarios"] if s["dims"]["study"] == "logon-load"}


def test_logon_time_crosses_its_baseline_plus_a_second_at_the_stated_users(client, demo_logon):
    body = client.get("/api/v1/campaigns/demo-logon/capacity?timing=logon").json()
    found = _load_runs(body)
    assert sorted(found) == ["2.1", "3.02"]
    smb21, smb302 = found["2.1"], found["3.02"]
    assert (smb21["baseline_ms"], smb21["threshold_ms"]) == (pytest.approx(1000), pytest.approx(2000))
    assert smb21["bound"] == "interpolated"
    assert smb21["saturation_users"] == pytest.approx(500 + 100 * 400 / 600, abs=0.05)  # 1,600 -> 2,200 ms
    assert smb302["saturation_users"] == pytest.approx(875, abs=0.05)  # 1,400 at 800, 2,200 at 900
    # Every step: 4 clients x 3 logons, the mean exactly the stated figure (the clients' offsets cancel).
    steps = {s["users"]: s for s in smb21["steps"]}
    assert sorted(steps) == list(range(100, 1001, 100))
    assert [steps[u]["n"] for u in (100, 600, 1000)] == [12, 12, 12]
    assert steps[600]["hosts"] == 4
    assert [round(steps[u]["mean"], 6) for u in (400, 500, 600, 1000)] == [1000, 1600, 2200, 4600]


def test_a_factor_and_the_word_launch_give_their_own_crossings(client, demo_logon):
    doubled = _load_runs(client.get("/api/v1/campaigns/demo-logon/capacity?timing=logon&factor=2").json())
    assert doubled["3.02"]["threshold_ms"] == pytest.approx(2000)
    assert doubled["3.02"]["saturation_users"] == pytest.approx(875, abs=0.05)
    word = _load_runs(
        client.get("/api/v1/campaigns/demo-logon/capacity?timing=Word launch&delta_ms=500").json()
    )
    # 1,200 ms flat, then +2 ms per user after 600 (SMB 2.1): 1,700 ms at 850 users.
    assert word["2.1"]["baseline_ms"] == pytest.approx(1200)
    assert word["2.1"]["saturation_users"] == pytest.approx(850, abs=0.05)
    # SMB 3.02 stays flat to 800 users and reaches only 1,600 ms at 1,000: no step crosses 1,700 ms.
    assert word["3.02"]["bound"] == "extrapolated" and word["3.02"]["saturation_users"] > 1000


def test_the_limit_table_names_logon_time_over_smb_2_1_and_cpu_over_smb_3_02(client, demo_logon):
    found = _load_runs(client.get("/api/v1/campaigns/demo-logon/capacity").json())
    smb21, smb302 = found["2.1"], found["3.02"]
    assert smb21["saturation_users"] == pytest.approx(833.3, abs=0.1)
    assert smb302["saturation_users"] == pytest.approx(775, abs=0.05)

    def users(scenario: dict, resource: str) -> float:
        (row,) = [r for r in scenario["limits"] if r["resource"] == resource and r.get("users") is not None]
        return row["users"]

    assert users(smb21, "timing") == pytest.approx(566.7, abs=0.1)
    assert users(smb21, "cpu") == pytest.approx(833.3, abs=0.1)
    assert smb21["limiting"]["resource"] == "timing"
    assert smb21["limiting"]["limit_text"] == "logon time exceeds its baseline by 1 s"
    assert users(smb302, "timing") == pytest.approx(875, abs=0.05)
    assert smb302["limiting"]["resource"] == "cpu"

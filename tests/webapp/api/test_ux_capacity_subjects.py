"""Capacity by user experience on timings with subjects: FSCT's response time per operation, from the real
fixture file through the real ingest path. Each operation is its own curve, never pooled with the others."""

from __future__ import annotations

import pytest

from tests.factories import make_campaign, make_user
from tests.webapp.analysis.test_fsct_curves import OVERLOAD, ingest
from webapp.analysis.timing_steps import placed_timing_names

pytestmark = pytest.mark.django_db
OPERATIONS = ("Explorer download", "Explorer upload", "Word open and save")


@pytest.fixture
def campaign(client):
    campaign = make_campaign()
    ingest(campaign, OVERLOAD, {"av": "on"})
    client.force_login(make_user(campaign.project))
    return campaign


def _answer(client, campaign, query: str) -> dict:
    response = client.get(f"/api/v1/campaigns/{campaign.slug}/capacity?{query}")
    assert response.status_code == 200, response.content
    (scenario,) = response.json()["scenarios"]
    return scenario


def test_each_operation_is_a_timing_of_its_own(campaign):
    names = placed_timing_names(campaign.pk)
    assert [f"fsct.response_ms [{operation}]" for operation in OPERATIONS] == [
        n for n in names if n.startswith("fsct.response_ms")
    ]


def test_word_open_and_save_crosses_its_baseline_plus_half_a_second_between_800_and_900_users(
    client, campaign
):
    word = _answer(client, campaign, "timing=fsct.response_ms [Word open and save]&delta_ms=500")
    # The file's averages: 660 ms at 100 users, 891 at 800, 1,320 at 900 -> threshold 1,160 ms.
    assert (word["baseline_ms"], word["threshold_ms"]) == (pytest.approx(660), pytest.approx(1160))
    assert word["bound"] == "interpolated"
    assert word["saturation_users"] == pytest.approx(800 + 100 * (1160 - 891) / (1320 - 891))
    assert [(s["users"], s["mean"], s["n"]) for s in word["steps"]][-3:] == [
        (800, 891.0, 1),
        (900, 1320.0, 1),
        (1000, 1947.0, 1),
    ]


def test_explorer_upload_has_its_own_baseline_and_crossing(client, campaign):
    upload = _answer(client, campaign, "timing=fsct.response_ms [Explorer upload]&delta_ms=500")
    # 420 ms at 100 users; 840 at 900, 1,239 at 1,000 -> threshold 920 ms.
    assert upload["baseline_ms"] == pytest.approx(420)
    assert upload["saturation_users"] == pytest.approx(900 + 100 * (920 - 840) / (1239 - 840))
    doubled = _answer(client, campaign, "timing=fsct.response_ms [Explorer download]&factor=2")
    assert (doubled["baseline_ms"], doubled["saturation_users"]) == (pytest.approx(290), pytest.approx(900))


def test_a_metric_named_without_its_subject_has_no_scenarios_and_says_which_names_there_are(client, campaign):
    response = client.get(f"/api/v1/campaigns/{campaign.slug}/capacity?timing=fsct.response_ms")
    assert response.status_code == 200
    body = response.json()
    assert body["scenarios"] == []
    assert body["timings"] == [f"fsct.response_ms [{operation}]" for operation in OPERATIONS]
    assert "'metric [subject]'" in body["timing_note"]
    answer = client.get(
        f"/api/v1/campaigns/{campaign.slug}/capacity?timing=fsct.response_ms [Explorer upload]"
    )
    assert "timing_note" not in answer.json() and len(answer.json()["scenarios"]) == 1

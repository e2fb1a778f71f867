"""Timing limits in the limit table (issue 21): user experience against counters, whichever binds first."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from tests.factories import make_campaign, make_user
from tests.webapp.analysis.studies import CPU, add_run
from tests.webapp.analysis.ux_studies import timing_run
from webapp.core.models import DEFAULT_LIMITS, ResourceLimit
from webapp.sharing.answer import headline

pytestmark = pytest.mark.django_db

DIMS = {"smb_dialect": "3.02"}
# CPU 80 % at 400 + 10 / 20 x 100 = 450 users.
CPU_LEVELS = {CPU: (20, 40, 60, 70, 90)}
# Logon: 1,000 ms to 300 users, 1,800 at 400, 2,800 at 500: baseline + 1 s at 400 + 200 / 1,000 x 100 = 420.
LOGON = {100: 1000.0, 200: 1000.0, 300: 1000.0, 400: 1800.0, 500: 2800.0}


@pytest.fixture
def campaign(client):
    found = make_campaign()
    run = add_run(found, DIMS, CPU_LEVELS)
    timing_run(found, DIMS, mean=LOGON.__getitem__, clients={"CL01": 0.0}, jitter={1: 0.0}, run=run)
    for row in DEFAULT_LIMITS:
        ResourceLimit.objects.create(campaign=found, **row)
    client.force_login(make_user(found.project))
    return found


def capacity(client, campaign, query: str = ""):
    answer = client.get(f"/api/v1/campaigns/{campaign.slug}/capacity?{query}")
    assert answer.status_code == 200, answer.content
    (scenario,) = answer.json()["scenarios"]
    return scenario


def test_a_logon_limit_reached_before_cpu_is_limiting_and_binds(client, campaign):
    ResourceLimit.objects.create(campaign=campaign, resource="timing", timing="logon", threshold=1000.0)
    scenario = capacity(client, campaign)
    assert scenario["limiting"] == {
        "resource": "timing",
        "counter": "logon",
        "users": pytest.approx(420.0),
        "host": "",
        "limit_text": "logon time exceeds its baseline by 1 s",
    }
    assert scenario["runner_up"]["resource"] == "cpu"
    assert scenario["runner_up"]["margin"] == pytest.approx(30.0)
    timing = next(r for r in scenario["limits"] if r["resource"] == "timing")
    assert timing["limit"] == pytest.approx(2000.0) and timing["interval"] == [400.0, 500.0]
    assert scenario["binding"]["by"] == "limit" and scenario["binding"]["resource"] == "timing"
    assert scenario["binding"]["users"] == pytest.approx(420.0)
    assert scenario["saturation_users"] == pytest.approx(450.0)  # the counter's own answer is unchanged
    assert headline(scenario, [], CPU, "avg", 80.0) == (
        "SMB 3.02 carries 420 users before logon time exceeds its baseline by 1 s (CPU would allow 450)."
    )


def test_sizing_follows_the_logon_limit(client, campaign):
    ResourceLimit.objects.create(campaign=campaign, resource="timing", timing="logon", threshold=1000.0)
    answer = client.get(f"/api/v1/campaigns/{campaign.slug}/sizing?users=4200&target=80&redundancy=0")
    (row,) = answer.json()["scenarios"]
    assert row["users_per_server"] == pytest.approx(420.0) and row["servers"] == 10
    assert row["binding"]["resource"] == "timing"
    assert row["counter_users_per_server"] == pytest.approx(450.0) and row["counter_servers"] == 10
    assert row["assumptions"][0] == (
        "One server carries 420 users before logon time exceeds its baseline by 1 s: "
        "interpolated between the tested steps."
    )


def test_a_factor_limit_reached_after_cpu_is_the_runner_up(client, campaign):
    # 2.5 x 1,000 ms: 400 + 700 / 1,000 x 100 = 470 users, after CPU's 450.
    ResourceLimit.objects.create(
        campaign=campaign, resource="timing", timing="logon", threshold=0.0, factor=2.5
    )
    scenario = capacity(client, campaign)
    assert scenario["limiting"]["resource"] == "cpu"
    assert scenario["runner_up"]["resource"] == "timing"
    assert scenario["runner_up"]["users"] == pytest.approx(470.0)
    assert scenario["runner_up"]["margin"] == pytest.approx(20.0)
    assert scenario["runner_up"]["limit_text"] == "logon time reaches 2.5x its baseline"
    assert scenario["binding"]["by"] == "target"
    assert headline(scenario, [], CPU, "avg", 80.0) == "SMB 3.02 carries 450 users before CPU reaches 80 %."


def test_the_timing_answer_carries_the_same_limits(client, campaign):
    ResourceLimit.objects.create(campaign=campaign, resource="timing", timing="logon", threshold=1000.0)
    scenario = capacity(client, campaign, "timing=logon")
    assert scenario["saturation_users"] == pytest.approx(420.0)
    assert scenario["limiting"]["resource"] == "timing"
    assert {r["resource"] for r in scenario["limits"]} == {"cpu", "timing"}
    assert scenario["binding"]["by"] == "target" and scenario["binding"]["resource"] == "timing"


def test_a_disabled_timing_limit_is_ignored(client, campaign):
    ResourceLimit.objects.create(
        campaign=campaign, resource="timing", timing="logon", threshold=1000.0, enabled=False
    )
    assert capacity(client, campaign)["limiting"]["resource"] == "cpu"


def test_a_timing_row_is_checked_before_it_is_saved(campaign):
    row = ResourceLimit(campaign=campaign, resource="timing", timing="", threshold=0.0, baseline="median")
    with pytest.raises(ValidationError) as info:
        row.full_clean()
    assert set(info.value.message_dict) == {"timing", "threshold", "baseline"}
    ResourceLimit(campaign=campaign, resource="timing", timing="logon", threshold=1000.0).full_clean()
    ResourceLimit(
        campaign=campaign, resource="timing", timing="launch", threshold=0.0, baseline="lowest:5", factor=2.0
    ).full_clean()

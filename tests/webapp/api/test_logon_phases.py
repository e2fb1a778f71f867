"""``GET /api/v1/campaigns/{slug}/logon-phases``: mean per phase and scenario with n, missing phases null,
factors and intervals against a baseline; on a real Group Policy log and on built logons."""

from __future__ import annotations

import pytest

from tests.ingest import ingest_path
from tests.webapp.analysis.logon_study import add_logons
from tests.workers.pipeline.parsers.evtx.helpers import GP_DIRTY, _records
from webapp.analysis.logon_phases import ratio_interval
from webapp.core.models import Scenario

SHELL = "Microsoft-Windows-Shell-Core"


def _get(client, token, campaign, **params):
    response = client.get(
        f"/api/v1/campaigns/{campaign.slug}/logon-phases", params, HTTP_AUTHORIZATION=f"Bearer {token}"
    )
    return response


def _phase(scenario, key):
    return next(p for p in scenario["phases"] if p["phase"] == key)


def test_the_real_group_policy_log_gives_the_policy_phase_and_marks_the_rest_missing(client, agent):
    token, campaign = agent
    upload = ingest_path(campaign, GP_DIRTY, scenario={"redirection": "off"}, host="CLIENT-01")
    assert upload.status == "stored", upload.error
    # Expected by hand from the file: each 4001 -> 8001 pair (same activity id), in 100 ns ticks.
    records = _records(GP_DIRTY)
    starts = {r.activity: r for r in records if r.event_id == 4001}
    user_ms = [(r.ticks - starts[r.activity].ticks) / 10_000 for r in records if r.event_id == 8001]
    assert len(user_ms) == 16
    body = _get(client, token, campaign).json()
    (scenario,) = body["scenarios"]
    assert scenario["dims"] == {"redirection": "off"}
    policy = _phase(scenario, "group_policy")
    assert policy["n"] == 16 and policy["missing"] is False
    assert policy["mean_ms"] == pytest.approx(sum(user_ms) / 16, abs=1e-6)
    assert max(user_ms) == 888.6492
    for key in ("profile", "scripts", "shell", "total"):
        missing = _phase(scenario, key)
        assert (missing["mean_ms"], missing["n"], missing["missing"]) == (None, 0, True), key
    assert _phase(scenario, "shell")["inferred"] is True
    assert body["comparisons"] == [] and body["has_phases"] is True


def test_built_logons_give_each_phase_mean_and_the_factor_between_scenarios(client, agent):
    token, campaign = agent
    add_logons(campaign, {"redirection": "off"}, (0.8, 1.0, 1.2))
    add_logons(campaign, {"redirection": "on"}, (1.6, 2.0, 2.4, 2.0), drop=SHELL)
    off = Scenario.objects.get(campaign=campaign, redirection="off")
    body = _get(client, token, campaign, baseline=off.pk).json()
    assert [p["phase"] for p in body["phases"]] == [
        "profile",
        "group_policy",
        "cse:Folder Redirection",
        "cse:Registry",
        "scripts",
        "shell",
        "total",
    ]
    first, second = body["scenarios"]
    assert first["scenario"] == off.pk
    # Means of the scales (1.0 and 2.0) times the base durations of built_logon.full_logon.
    for key, base in (
        ("profile", 1800.5),
        ("group_policy", 4000.0),
        ("cse:Folder Redirection", 2500.0),
        ("cse:Registry", 120.0),
        ("scripts", 1250.0),
        ("shell", 1500.0),
        ("total", 7350.0),
    ):
        assert _phase(first, key)["mean_ms"] == pytest.approx(base), key
        assert _phase(first, key)["n"] == 3
        if key in ("shell", "total"):  # no Shell-Core log uploaded for redirection=on
            assert (_phase(second, key)["mean_ms"], _phase(second, key)["missing"]) == (None, True)
        else:
            assert _phase(second, key)["mean_ms"] == pytest.approx(2 * base), key
            assert _phase(second, key)["n"] == 4
    assert first["group_policy_other_ms"] == pytest.approx(4000.0 - 2500.0 - 120.0)
    by_phase = {c["phase"]: c for c in body["comparisons"]}
    fr = by_phase["cse:Folder Redirection"]
    assert fr["factor"] == pytest.approx(2.0) and fr["n"] == [4, 3]
    assert fr["interval"][0] < 2.0 < fr["interval"][1] and fr["interval"][0] > 1.0
    assert fr["significant"] is True and fr["verdict"] == "significant"
    expected = ratio_interval([2000.0, 2500.0, 3000.0], [4000.0, 5000.0, 6000.0, 5000.0])
    assert expected is not None and fr["interval"] == pytest.approx(list(expected))
    shell = by_phase["shell"]
    assert (shell["factor"], shell["interval"], shell["verdict"]) == (None, None, "missing")
    assert shell["missing_in"] == [second["label"]]


def test_one_logon_a_side_gives_a_factor_but_no_interval(client, agent):
    token, campaign = agent
    add_logons(campaign, {"av": "off"}, (1.0,))
    add_logons(campaign, {"av": "on"}, (1.5,))
    body = _get(client, token, campaign).json()
    total = next(c for c in body["comparisons"] if c["phase"] == "total")
    assert total["factor"] == pytest.approx(1.5)
    assert (total["interval"], total["significant"], total["verdict"]) == (None, None, "too few runs")


def test_a_campaign_without_logon_events_answers_no_phases(client, agent):
    token, campaign = agent
    body = _get(client, token, campaign).json()
    assert (body["has_phases"], body["scenarios"], body["comparisons"]) == (False, [], [])


def test_an_unknown_baseline_is_a_404_and_a_bad_one_a_400(client, agent):
    token, campaign = agent
    assert _get(client, token, campaign, baseline=999999).status_code == 404
    response = _get(client, token, campaign, baseline="first")
    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid_request"

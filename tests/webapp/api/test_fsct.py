"""``GET /api/v1/campaigns/{slug}/fsct``: FSCT's per-step figures and overload step, from the fixture files."""

from __future__ import annotations

import pytest

from tests.factories import make_campaign, make_token, make_user
from tests.webapp.analysis.test_fsct_curves import CLEAN, OVERLOAD, THROUGHPUT, ingest

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign(client):
    campaign = make_campaign()
    ingest(campaign, OVERLOAD, {"av": "on"})
    ingest(campaign, CLEAN, {"av": "off"})
    client.force_login(make_user(campaign.project))
    return campaign


def test_it_answers_each_scenarios_steps_and_its_overload_step(client, campaign):
    response = client.get(f"/api/v1/campaigns/{campaign.slug}/fsct")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["units"]["throughput_sps"] == "scenarios/s" and body["units"]["response_ms"] == "ms"
    on, off = body["scenarios"]
    assert on["dims"] == {"av": "on"} and off["dims"] == {"av": "off"}
    assert [s["throughput_sps"] for s in on["steps"]] == pytest.approx(THROUGHPUT)
    assert (on["overload_users"], on["last_good_users"]) == (900, 800)
    assert on["operations"] == ["Explorer download", "Explorer upload", "Word open and save"]
    last = on["steps"][-1]
    assert last == {
        "users": 1000,
        "throughput_sps": 75.06,
        "overload_pct": 14.8,
        "overloaded": True,
        "errors": 41.0,
        "errors_pct": None,
        "responses": [
            {"operation": "Explorer download", "ms": 855.5},
            {"operation": "Explorer upload", "ms": 1239.0},
            {"operation": "Word open and save", "ms": 1947.0},
        ],
        "runs": 1,
        "runs_overloaded": 1,
    }
    assert (off["overload_users"], off["last_good_users"]) == (None, None)
    assert off["steps"][0]["responses"][0] == {"operation": "DirectoryBrowse", "ms": 41.0}


def test_an_agent_token_of_the_project_reads_it_too(client, campaign):
    _, secret = make_token(campaign.project)
    client.logout()
    response = client.get(f"/api/v1/campaigns/{campaign.slug}/fsct", HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert response.status_code == 200 and len(response.json()["scenarios"]) == 2


def test_a_campaign_without_fsct_results_has_no_scenarios(client):
    campaign = make_campaign()
    client.force_login(make_user(campaign.project))
    response = client.get(f"/api/v1/campaigns/{campaign.slug}/fsct")
    assert response.status_code == 200 and response.json()["scenarios"] == []


def test_an_unknown_or_foreign_campaign_is_a_404(client, campaign):
    assert client.get("/api/v1/campaigns/no-such-campaign/fsct").status_code == 404
    other = make_campaign()
    response = client.get(f"/api/v1/campaigns/{other.slug}/fsct")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    client.logout()
    assert client.get(f"/api/v1/campaigns/{campaign.slug}/fsct").status_code == 401

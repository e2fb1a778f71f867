"""Issue 23: a series of campaigns, its history and which answers changed against the baseline.

Hand-built studies (``tests.webapp.analysis.studies``): CPU rises linearly with
users, three runs per scenario whose slopes differ by +-1 %. With a 75 % threshold
a slope of 0.2 %/user saturates at 75 / 0.2 = 375 users (between the 300- and
400-user steps, 60 % and 80 %). The third campaign's SMB 3.02 slope is
0.2 / 0.86: it saturates at 375 x 0.86 = 322.5 users, 14 % fewer.
"""

from __future__ import annotations

import pytest

from tests.factories import make_campaign, make_token, make_user
from tests.ingest import ingest_bytes
from tests.webapp.analysis.studies import add_run, series_campaign
from webapp.core.models import Campaign, Series

pytestmark = pytest.mark.django_db

CPU = "\\Processor(_Total)\\% Processor Time"
USERS = (100, 200, 300, 400, 500)
SMB21, SMB302 = {"smb_dialect": "2.1"}, {"smb_dialect": "3.02"}


def study(project, slug: str, key: str, slopes: dict[str, float], series: str = "fs-monthly") -> Campaign:
    return series_campaign(project, slug, key, slopes, series)


@pytest.fixture
def series(client):
    project = make_campaign().project
    # Created out of order: the series key decides ("build 9" before "build 10").
    study(project, "patch-c", "build 10", {"2.1": 0.2, "3.02": 0.2 / 0.86})
    study(project, "patch-a", "build 8", {"2.1": 0.2, "3.02": 0.2})
    study(project, "patch-b", "build 9", {"2.1": 0.2, "3.02": 0.2})
    client.force_login(make_user(project, role="editor"))
    return project


def history(client, query="threshold=75"):
    response = client.get(f"/api/v1/series/fs-monthly/history?{query}")
    assert response.status_code == 200, response.content
    return response.json()


def test_the_third_campaign_reports_exactly_the_scenario_that_lost_14_percent(client, series):
    body = history(client)
    assert [c["slug"] for c in body["campaigns"]] == ["patch-a", "patch-b", "patch-c"]
    assert [c["compared_with"] for c in body["campaigns"]] == [None, "patch-a", "patch-b"]
    assert body["baseline"] == {"mode": "previous", "campaign": None}
    users = {
        (c["slug"], s["dims"]["smb_dialect"]): s["saturation_users"]
        for c in body["campaigns"]
        for s in c["scenarios"]
    }
    assert users[("patch-a", "2.1")] == pytest.approx(375.0)
    assert users[("patch-c", "3.02")] == pytest.approx(322.5)
    saturation = [c for c in body["changes"] if c["metric"] == "saturation_users"]
    assert len(saturation) == 4  # two scenarios, two comparisons
    significant = [c for c in saturation if c["significant"]]
    assert len(significant) == 1
    (worse,) = significant
    assert (worse["campaign"], worse["baseline"], worse["dims"]) == ("patch-c", "patch-b", SMB302)
    assert worse["direction"] == "worse" and worse["change_pct"] == pytest.approx(-14.0)
    assert (worse["baseline_value"], worse["value"]) == (pytest.approx(375.0), pytest.approx(322.5))
    assert worse["runs"] == [3, 3] and "intervals" in worse["method"]
    unchanged = [c for c in saturation if c is not worse]
    assert all(c["significant"] is False and c["change_pct"] == pytest.approx(0.0) for c in unchanged)


def test_a_pinned_baseline_compares_every_campaign_with_it(client, series):
    response = client.put(
        "/api/v1/series/fs-monthly", {"baseline": "patch-a"}, content_type="application/json"
    )
    assert response.status_code == 200 and response.json()["baseline"] == "patch-a"
    body = history(client)
    assert body["baseline"] == {"mode": "pinned", "campaign": "patch-a"}
    assert [c["compared_with"] for c in body["campaigns"]] == [None, "patch-a", "patch-a"]
    worse = [c for c in body["changes"] if c["significant"]]
    assert [(c["campaign"], c["baseline"], c["dims"]) for c in worse] == [("patch-c", "patch-a", SMB302)]
    response = client.put("/api/v1/series/fs-monthly", {"baseline": "nope"}, content_type="application/json")
    assert response.status_code == 400 and "patch-a, patch-b, patch-c" in response.json()["error"]["message"]


def test_one_run_a_side_gets_no_verdict(client):
    project = make_campaign().project
    for slug, slope in (("one-a", 0.2), ("one-b", 0.1)):
        campaign = make_campaign(project=project, slug=slug)
        campaign.series, _ = Series.objects.get_or_create(slug="single", defaults={"project": project})
        campaign.series_key = slug
        campaign.save()
        add_run(campaign, SMB21, {CPU: [u * slope for u in USERS]}, USERS, host=f"FS-{slug}")
    client.force_login(make_user(project))
    (change,) = client.get("/api/v1/series/single/history?threshold=75").json()["changes"]
    # 375 users, then 750: the curve doubled, but one run each cannot say it is real.
    assert change["change_pct"] == pytest.approx(100.0) and change["direction"] == "better"
    assert change["significant"] is None and change["verdict"] == "too few runs"


def test_campaigns_join_a_series_through_the_api_and_other_tenants_cannot_see_it(client):
    campaign = make_campaign()
    _, token = make_token(campaign.project)
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    body = {"slug": "nov", "name": "November", "series": "monthly", "series_key": "2026-11"}
    response = client.post("/api/v1/campaigns", body, content_type="application/json", **auth)
    assert response.status_code == 201, response.content
    assert (response.json()["series"], response.json()["series_key"]) == ("monthly", "2026-11")
    body = {"slug": "oct", "name": "October", "series": "monthly", "series_key": "2026-10"}
    assert client.post("/api/v1/campaigns", body, content_type="application/json", **auth).status_code == 201
    listed = client.get("/api/v1/series/monthly", **auth).json()
    assert [c["slug"] for c in listed["campaigns"]] == ["oct", "nov"]
    # Another project may neither see the series nor join it.
    other = make_campaign()
    _, other_token = make_token(other.project)
    other_auth = {"HTTP_AUTHORIZATION": f"Bearer {other_token}"}
    assert client.get("/api/v1/series/monthly/history", **other_auth).status_code == 404
    body = {"slug": "mine", "name": "Mine", "series": "monthly"}
    response = client.post("/api/v1/campaigns", body, content_type="application/json", **other_auth)
    assert response.status_code == 409 and response.json()["error"]["code"] == "series_taken"
    assert not Campaign.objects.filter(slug="mine").exists()


def logons(values: list[float]) -> bytes:
    rows = [f"logon,2016-05-0{index % 9 + 1}T09:00:00Z,{value}" for index, value in enumerate(values)]
    return ("name,started_at,duration_ms\n" + "\n".join(rows) + "\n").encode()


def test_a_slower_logon_is_reported_worse_with_welchs_test(client):
    """Logon times (ms): 1,000, 1,010, 990, 1,005 twice, then 3.02 takes 1,200, 1,210, 1,190, 1,205."""
    project = make_campaign().project
    usual, slow = [1000.0, 1010.0, 990.0, 1005.0], [1200.0, 1210.0, 1190.0, 1205.0]
    for index, slug in enumerate(("logon-a", "logon-b", "logon-c")):
        campaign = make_campaign(project=project, slug=slug)
        campaign.series, _ = Series.objects.get_or_create(slug="logons", defaults={"project": project})
        campaign.series_key = str(index)
        campaign.save()
        ingest_bytes(campaign, logons(usual), host="C1", filename="a.csv", scenario=SMB21)
        data = logons(slow if slug == "logon-c" else usual)
        ingest_bytes(campaign, data, host="C2", filename="b.csv", scenario=SMB302)
    client.force_login(make_user(project))
    changes = client.get("/api/v1/series/logons/history").json()["changes"]
    assert (
        sorted((c["campaign"], c["metric"]) for c in changes)
        == [("logon-b", "logon")] * 2 + [("logon-c", "logon")] * 2
    )
    (worse,) = [c for c in changes if c["significant"]]
    assert (worse["campaign"], worse["dims"], worse["unit"]) == ("logon-c", SMB302, "ms")
    assert worse["baseline_value"] == pytest.approx(1001.25) and worse["value"] == pytest.approx(1201.25)
    assert worse["change_pct"] == pytest.approx(200 / 1001.25 * 100) and worse["direction"] == "worse"
    assert worse["runs"] == [4, 4] and worse["p_value"] < 0.05
    assert sum(c["significant"] is False for c in changes) == 3, [
        (c["campaign"], c["dims"], c["significant"], c["p_value"]) for c in changes
    ]

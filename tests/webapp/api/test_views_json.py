"""Every dashboard view has its JSON, equal to what the page renders (issue 20).

On the demo campaign through the real ingest path: the home page's campaign
list, the campaign page's scenarios and runs, the block-size, copies and
traces pages' data, each read from the page's HTML and from the API.
"""

from __future__ import annotations

import html as html_lib
import re

import pytest
from django.db.models import Count

from tests.factories import make_campaign, make_token, make_user
from tests.webapp.dashboard.demo import add_block_size_runs, load_demo
from tests.webapp.dashboard.test_pages import page_data
from webapp.core.models import Run, RunStep, Scenario, Upload

pytestmark = pytest.mark.django_db

VIEWS = ("runs", "uploads", "block-size", "copies", "traces")


@pytest.fixture
def demo(client):
    campaign = load_demo()
    client.force_login(make_user(campaign.project))
    return campaign


def cells(html: str, label: str) -> list[list[str]]:
    """The body rows of the table in the region ``aria-label=label``, as stripped cell texts."""
    region = html.split(f'aria-label="{label}"', 1)[1].split("</table>", 1)[0]
    body = region.split("<tbody>", 1)[1]
    rows = re.findall(r"<tr>(.*?)</tr>", body, re.S)
    return [
        [
            html_lib.unescape(re.sub(r"<[^>]+>", "", c)).strip()
            for c in re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)
        ]
        for r in rows
    ]


def test_the_campaign_list_is_the_home_page_s_with_its_counts(client, demo):
    other = make_campaign()
    response = client.get("/api/v1/campaigns")
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 1 and [c["slug"] for c in body["campaigns"]] == ["demo"]
    listed = body["campaigns"][0]
    scenarios = Scenario.objects.filter(campaign=demo).count()
    uploads = Upload.objects.filter(campaign=demo).count()
    assert (listed["scenarios"], listed["uploads"]) == (scenarios, uploads)
    assert scenarios > 5 and uploads > 10  # the demo's real study, not an empty one
    assert listed["dimensions"] == demo.dimensions and listed["project"] == demo.project.slug
    home = cells(client.get("/").content.decode(), "Campaigns")
    assert [[row[0], row[2], row[3]] for row in home] == [[demo.name, str(scenarios), str(uploads)]]
    # An agent sees its own project's campaigns only; whoami is unchanged beside it.
    _, token = make_token(other.project)
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    theirs = client.get("/api/v1/campaigns", **auth).json()
    assert [(c["slug"], c["scenarios"], c["uploads"]) for c in theirs["campaigns"]] == [(other.slug, 0, 0)]
    assert client.get("/api/v1/whoami", **auth).json()["projects"][0]["campaigns"] == [other.slug]
    one = client.get("/api/v1/campaigns/demo").json()
    assert {k: one[k] for k in ("slug", "name", "project")} == {
        "slug": "demo",
        "name": demo.name,
        "project": demo.project.slug,
    }


def test_the_runs_overview_is_the_campaign_page_s_tables(client, demo):
    body = client.get("/api/v1/campaigns/demo/runs").json()
    html = client.get("/campaigns/demo/").content.decode()
    scenarios = Scenario.objects.filter(campaign=demo).annotate(n=Count("runs")).order_by("pk")
    assert [(s["id"], s["label"], s["run_count"]) for s in body["scenarios"]] == [
        (s.pk, s.label, s.n) for s in scenarios
    ]
    assert [[s["label"], str(s["run_count"])] for s in body["scenarios"]] == cells(html, "Scenarios")
    runs = Run.objects.filter(campaign=demo)
    assert len(body["runs"]) == runs.count() > 0
    assert (
        sum(r["step_count"] for r in body["runs"]) == RunStep.objects.filter(run__campaign=demo).count() > 0
    )
    page_runs = cells(html, "Runs")
    assert [[r["name"], r["tool"], r["scenario_label"], str(r["step_count"])] for r in body["runs"]] == [
        row[:4] for row in page_runs
    ]
    started = [r["started_at"] for r in body["runs"]]
    assert [row[4] for row in page_runs] == [
        f"{s[:10]} {s[11:19]}" if s else "" for s in started
    ]  # the page's "Y-m-d H:i:s" of the API's UTC timestamps


def test_the_block_size_figures_are_the_page_s(client, demo):
    expected = add_block_size_runs(demo)
    body = client.get("/api/v1/campaigns/demo/block-size").json()
    page = page_data(client.get("/campaigns/demo/block-size/").content.decode())
    assert body["points"] == page["points"]
    read_mbps = {
        (p["label"].split("disk_type=")[1].split(",")[0], p["block_size"]): p["value"]
        for p in body["points"]
        if p["family"] == "mbps" and p["direction"] == "read"
    }
    assert read_mbps == pytest.approx(expected)
    assert read_mbps[("SSD", "65536")] == pytest.approx(4.0 * 16 * 10)


def test_the_copy_comparison_is_the_page_s(client, demo):
    body = client.get("/api/v1/campaigns/demo/copies").json()
    page = page_data(client.get("/campaigns/demo/copies/").content.decode())
    for key in ("configurations", "resources", "figures"):
        assert body[key] == page[key], key
    # The demo's published copy times (seed 003): five robocopy configurations, Storage Replica three rounds.
    assert len(body["configurations"]) == 6
    replica = next(c for c in body["configurations"] if c["technique"] == "storage_replica")
    assert sorted(replica["seconds"]) == [14 * 60 + 23, 14 * 60 + 27, 14 * 60 + 29]
    assert replica["n"] == 3 and replica["mean_s"] == pytest.approx((863 + 867 + 869) / 3)
    assert replica["runs"] == sorted(
        Run.objects.filter(campaign=demo, scenario__extras__technique="storage_replica").values_list(
            "pk", flat=True
        )
    )


def test_the_trace_explorer_s_runs_and_steps_are_the_page_s(client, demo):
    body = client.get("/api/v1/campaigns/demo/traces").json()
    html = client.get("/campaigns/demo/traces/").content.decode()
    offered = [
        int(v)
        for v in re.findall(r'<option value="(\d+)"', html.split('id="f-run"')[1].split("</select>")[0])
    ]
    assert [r["id"] for r in body["runs"]] == offered and len(offered) >= 2
    assert body["run"] == offered[0] == page_data(html)["run"]
    second = offered[1]
    chosen = client.get(f"/api/v1/campaigns/demo/traces?run={second}").json()
    page = page_data(client.get(f"/campaigns/demo/traces/?run={second}").content.decode())
    assert chosen["run"] == page["run"] == second
    steps = list(RunStep.objects.filter(run_id=second).order_by("started_at").values_list("users", flat=True))
    assert [s["users"] for s in chosen["steps"]] == [s["users"] for s in page["steps"]] == steps
    assert len(steps) >= 3  # an FSCT run's load steps
    assert [s["start"] for s in page["steps"]] == [s["start"].replace("Z", "+00:00") for s in chosen["steps"]]
    untraced = Run.objects.filter(campaign=demo).exclude(pk__in=offered).first()
    assert untraced is not None
    missing = client.get(f"/api/v1/campaigns/demo/traces?run={untraced.pk}")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


def test_another_project_s_campaign_is_404_and_no_credentials_401(client, demo):
    foreign = make_campaign()
    for view in VIEWS:
        response = client.get(f"/api/v1/campaigns/{foreign.slug}/{view}")
        assert response.status_code == 404, view
        assert response.json()["error"]["code"] == "not_found"
    assert client.get(f"/api/v1/campaigns/{foreign.slug}").status_code == 404
    client.logout()
    for address in (
        "/api/v1/campaigns",
        "/api/v1/campaigns/demo",
        *(f"/api/v1/campaigns/demo/{v}" for v in VIEWS),
    ):
        response = client.get(address)
        assert response.status_code == 401, address
        assert response.json()["error"]["code"] == "unauthorized"
    # An agent token of the demo's project reads them as the signed-in member did.
    _, token = make_token(demo.project)
    for view in VIEWS:
        assert (
            client.get(f"/api/v1/campaigns/demo/{view}", HTTP_AUTHORIZATION=f"Bearer {token}").status_code
            == 200
        )


def test_the_openapi_document_lists_the_views_and_the_batch_bodies(client):
    doc = client.get("/api/v1/openapi.json").json()
    paths = doc["paths"]
    assert "get" in paths["/api/v1/campaigns"] and "post" in paths["/api/v1/campaigns"]
    for view in ("", *(f"/{v}" for v in VIEWS)):
        assert "get" in paths[f"/api/v1/campaigns/{{slug}}{view}"], view
    uploads = paths["/api/v1/campaigns/{slug}/uploads"]["get"]
    assert {"status", "kind", "offset", "limit"} <= {p["name"] for p in uploads["parameters"]}
    for key, required in (("samples", {"time", "value"}), ("timings", {"name", "started_at", "duration_ms"})):
        body = paths[f"/api/v1/{key}"]["post"]["requestBody"]
        schema = body["content"]["application/json"]["schema"]
        assert key in schema["required"] and "campaign" in schema["required"]
        assert set(schema["properties"][key]["items"]["required"]) == required
        assert body["content"]["application/json"]["example"][key]

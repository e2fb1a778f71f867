"""Issue 23: the series history page, the series fields of the campaign form, and notes on the pages.

The series is ``tests.webapp.analysis.studies.series_campaign``'s: with a 75 %
threshold SMB 2.1 saturates at 375 users in every campaign and SMB 3.02 at
322.5 in "build 10" (14 % fewer than in "build 9").
"""

from __future__ import annotations

import json
import re

import pytest

from tests.factories import make_campaign, make_user
from tests.webapp.analysis.studies import series_campaign
from webapp.core.models import Campaign, Note, Series

pytestmark = pytest.mark.django_db


@pytest.fixture
def series(client):
    project = make_campaign().project
    series_campaign(project, "patch-c", "build 10", {"2.1": 0.2, "3.02": 0.2 / 0.86})
    series_campaign(project, "patch-a", "build 8", {"2.1": 0.2, "3.02": 0.2})
    series_campaign(project, "patch-b", "build 9", {"2.1": 0.2, "3.02": 0.2})
    return Series.objects.get(slug="fs-monthly")


def page_data(html: str) -> dict:
    found = re.search(r'<script id="page-data" type="application/json">(.*?)</script>', html, re.S)
    assert found, "no page-data"
    return json.loads(found.group(1))


def test_the_history_page_asks_the_api_with_the_capacity_parameters_of_its_address(client, series):
    client.force_login(make_user(series.project, role="viewer"))
    response = client.get("/series/fs-monthly/history/?threshold=75&stat=max&trim=5")
    assert response.status_code == 200
    html = response.content.decode()
    data = page_data(html)
    assert data["api"] == "/api/v1/series/fs-monthly/history"
    assert (data["params"]["threshold"], data["params"]["stat"], data["params"]["trim"]) == (75.0, "max", 5.0)
    # The campaigns in series order, each linked; a viewer gets no baseline form and no share button.
    assert re.findall(r'href="/campaigns/(patch-\w)/"', html) == [
        "patch-a",
        "patch-b",
        "patch-c",
    ]
    assert 'id="baseline-form"' not in html and "Share this view" not in html
    # The figures come from the API the page names: the one the API tests check.
    body = client.get(f"{data['api']}?threshold=75").json()
    users = [s["saturation_users"] for c in body["campaigns"] for s in c["scenarios"]]
    assert users == pytest.approx([375.0, 375.0, 375.0, 375.0, 375.0, 322.5])


def test_a_refused_parameter_is_named_and_the_default_used(client, series):
    client.force_login(make_user(series.project, role="viewer"))
    html = client.get("/series/fs-monthly/history/?stat=median&trim=70").content.decode()
    assert "stat must be avg, max or p95, not &#x27;median&#x27;" in html
    assert "trim is a percentage of each step" in html
    assert page_data(html)["params"]["stat"] == "avg"


def test_an_editor_pins_the_baseline_and_chooses_previous_again(client, series):
    client.force_login(make_user(series.project, role="editor"))
    html = client.get("/series/fs-monthly/history/").content.decode()
    assert 'id="baseline-form"' in html and "Share this view" in html
    response = client.post("/series/fs-monthly/baseline", {"baseline": "patch-a", "query": "threshold=75"})
    assert response.status_code == 302 and response["Location"] == "/series/fs-monthly/history/?threshold=75"
    series.refresh_from_db()
    assert series.baseline.slug == "patch-a"
    body = client.get("/api/v1/series/fs-monthly/history?threshold=75").json()
    assert [c["compared_with"] for c in body["campaigns"]] == [None, "patch-a", "patch-a"]
    client.post("/series/fs-monthly/baseline", {"baseline": ""})
    series.refresh_from_db()
    assert series.baseline is None
    response = client.post("/series/fs-monthly/baseline", {"baseline": "elsewhere"}, follow=True)
    assert (
        "&#x27;elsewhere&#x27; is not a campaign of this series (patch-a, patch-b, patch-c)"
        in response.content.decode()
    )


def test_a_viewer_cannot_pin_and_another_tenant_cannot_see_the_series(client, series):
    client.force_login(make_user(series.project, role="viewer"))
    assert client.post("/series/fs-monthly/baseline", {"baseline": "patch-a"}).status_code == 404
    client.force_login(make_user(make_campaign().project, role="owner"))
    assert client.get("/series/fs-monthly/history/").status_code == 404


def test_each_campaign_of_a_series_links_to_its_history(client, series):
    client.force_login(make_user(series.project, role="viewer"))
    html = client.get("/campaigns/patch-b/").content.decode()
    assert "Part of the series <strong>fs-monthly</strong> at <strong>build 9</strong>" in html
    assert html.count('href="/series/fs-monthly/history/"') == 2  # the navigation's History and the sentence
    alone = make_campaign(project=series.project)
    assert "/series/" not in client.get(f"/campaigns/{alone.slug}/").content.decode()


def test_the_settings_form_joins_leaves_and_makes_a_series(client, series):
    campaign = make_campaign(project=series.project, slug="patch-d")
    client.force_login(make_user(series.project, role="editor"))
    form = {"name": "Patch D", "description": "", "dimension": ["smb_dialect"]}
    response = client.post(
        "/campaigns/patch-d/settings/", {**form, "series": "fs-monthly", "series_key": "build 11"}
    )
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert (campaign.series.slug, campaign.series_key) == ("fs-monthly", "build 11")
    assert "fs-monthly" in client.get("/campaigns/patch-d/settings/").content.decode()
    # A new slug makes a series; leaving a series unpins the campaign as its baseline.
    Series.objects.filter(pk=series.pk).update(baseline=campaign)
    client.post("/campaigns/patch-d/settings/", {**form, "series": "quarterly", "series_key": "Q1"})
    campaign.refresh_from_db()
    assert campaign.series.slug == "quarterly" and campaign.series.project == series.project
    assert Series.objects.get(pk=series.pk).baseline is None
    # The rules are creation's: a bad slug, an unsafe key, another tenant's series.
    bad = client.post("/campaigns/patch-d/settings/", {**form, "series": "Not A Slug"})
    assert bad.status_code == 400 and "series slug" in bad.content.decode()
    bad = client.post(
        "/campaigns/patch-d/settings/", {**form, "series": "quarterly", "series_key": "Q\u202e1"}
    )
    assert bad.status_code == 400 and "U+202E" in bad.content.decode()
    Series.objects.create(project=make_campaign().project, slug="theirs", name="theirs")
    bad = client.post("/campaigns/patch-d/settings/", {**form, "series": "theirs"})
    assert bad.status_code == 400 and "not available" in bad.content.decode()
    # An empty slug leaves the series; a form without the field keeps it.
    client.post("/campaigns/patch-d/settings/", {**form, "series": "", "series_key": ""})
    assert Campaign.objects.get(slug="patch-d").series is None
    client.post("/campaigns/patch-d/settings/", {**form, "series": "fs-monthly"})
    client.post("/campaigns/patch-d/settings/", form)
    assert Campaign.objects.get(slug="patch-d").series.slug == "fs-monthly"


def test_a_new_campaign_joins_a_series_from_the_form(client, series):
    client.force_login(make_user(series.project, role="editor"))
    form = {
        "project": series.project.slug,
        "slug": "patch-e",
        "name": "Patch E",
        "series": "fs-monthly",
        "series_key": "build 12",
    }
    assert client.post("/campaigns/new", form).status_code == 302
    assert Campaign.objects.get(slug="patch-e").series == series


def test_notes_are_added_on_the_overview_and_shown_beside_their_scenario_on_the_capacity_page(client, series):
    campaign = Campaign.objects.get(slug="patch-c")
    scenario = campaign.scenarios.get(smb_dialect="3.02")
    run = campaign.runs.filter(scenario__smb_dialect="2.1").first()
    client.force_login(make_user(series.project, role="editor", username="erin"))
    overview = client.get("/campaigns/patch-c/").content.decode()
    assert f'value="scenario:{scenario.pk}"' in overview and f'value="run:{run.pk}"' in overview
    client.post("/campaigns/patch-c/notes/new", {"text": "AV engine 1.2.3 installed", "target": "campaign"})
    client.post(
        "/campaigns/patch-c/notes/new", {"text": "SMB signing on", "target": f"scenario:{scenario.pk}"}
    )
    client.post("/campaigns/patch-c/notes/new", {"text": "FS rebooted", "target": f"run:{run.pk}"})
    refused = client.post("/campaigns/patch-c/notes/new", {"text": "bad\u202etext"}, follow=True)
    assert (
        "Note not added: a note must not contain control or text-direction characters"
        in refused.content.decode()
    )
    assert [(n.target, n.text) for n in Note.objects.order_by("pk")] == [
        ("campaign", "AV engine 1.2.3 installed"),
        ("scenario", "SMB signing on"),
        ("run", "FS rebooted"),
    ]
    capacity = client.get("/campaigns/patch-c/capacity/").content.decode()
    assert "campaign:</span> AV engine 1.2.3 installed" in capacity
    assert f"scenario {scenario.label}:</span> SMB signing on" in capacity
    assert f"run {run.name} ({run.scenario.label}):</span> FS rebooted" in capacity
    notes = json.loads(
        re.search(r'<script id="notes-data" type="application/json">(.*?)</script>', capacity, re.S).group(1)
    )
    # notes.js marks the saturation table's rows (data-scenario) by these ids.
    assert [(n["target"], n["scenario"]) for n in notes] == [
        ("campaign", None),
        ("scenario", scenario.pk),
        ("run", run.scenario_id),
    ]
    # The history answer carries each campaign's notes (the chart's ✎ and tooltip, the list under it).
    body = client.get("/api/v1/series/fs-monthly/history").json()
    assert [[n["text"] for n in c["notes"]] for c in body["campaigns"]] == [
        [],
        [],
        ["AV engine 1.2.3 installed", "SMB signing on", "FS rebooted"],
    ]
    note = Note.objects.get(text="FS rebooted")
    assert client.post(f"/campaigns/patch-c/notes/{note.pk}/delete").status_code == 302
    assert not Note.objects.filter(pk=note.pk).exists()
    assert client.post(f"/campaigns/patch-a/notes/{Note.objects.first().pk}/delete").status_code == 404

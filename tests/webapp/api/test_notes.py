"""Notes on a campaign, its scenarios and runs: who may read, write and delete them, and what text is refused."""

from __future__ import annotations

import pytest

from tests.factories import make_campaign, make_token, make_user
from tests.webapp.analysis.studies import add_run
from webapp.core.models import Note

pytestmark = pytest.mark.django_db

CPU = "\\Processor(_Total)\\% Processor Time"


@pytest.fixture
def campaign():
    found = make_campaign()
    add_run(found, {"av": "on"}, {CPU: [10, 20, 30, 40, 50]}, name="fsct-av-on")
    return found


def post(client, campaign, body, **headers):
    return client.post(
        f"/api/v1/campaigns/{campaign.slug}/notes", body, content_type="application/json", **headers
    )


def test_an_editor_notes_the_campaign_a_scenario_and_a_run_and_a_viewer_reads_them(client, campaign):
    run = campaign.runs.get()
    client.force_login(make_user(campaign.project, role="editor", username="erin"))
    made = [
        post(client, campaign, {"text": "AV engine 1.2.3 installed"}),
        post(client, campaign, {"text": "AV on-access scan of shares", "scenario": run.scenario_id}),
        post(client, campaign, {"text": "FS01 rebooted mid-run", "run": run.pk}),
    ]
    assert [r.status_code for r in made] == [201, 201, 201], [r.content for r in made]
    assert [r.json()["target"] for r in made] == ["campaign", "scenario", "run"]
    # A run's note names its scenario too (it shows beside the scenario's row).
    assert made[2].json()["scenario"] == run.scenario_id and made[2].json()["run_name"] == "fsct-av-on"
    client.force_login(make_user(campaign.project, role="viewer"))
    listed = client.get(f"/api/v1/campaigns/{campaign.slug}/notes").json()
    assert listed["count"] == 3
    assert [(n["text"], n["author"]) for n in listed["notes"]] == [
        ("AV engine 1.2.3 installed", "erin"),
        ("AV on-access scan of shares", "erin"),
        ("FS01 rebooted mid-run", "erin"),
    ]
    assert listed["notes"][1]["scenario_label"] == run.scenario.label


def test_a_viewer_may_not_write_or_delete_and_another_tenant_sees_nothing(client, campaign):
    note = Note.objects.create(project=campaign.project, campaign=campaign, text="kept")
    client.force_login(make_user(campaign.project, role="viewer"))
    assert post(client, campaign, {"text": "mine"}).status_code == 403
    assert client.delete(f"/api/v1/notes/{note.pk}").status_code == 403
    stranger = make_campaign()
    client.force_login(make_user(stranger.project, role="owner"))
    assert client.get(f"/api/v1/campaigns/{campaign.slug}/notes").status_code == 404
    assert post(client, campaign, {"text": "mine"}).status_code == 404
    assert client.delete(f"/api/v1/notes/{note.pk}").status_code == 404
    _, token = make_token(stranger.project)
    assert client.delete(f"/api/v1/notes/{note.pk}", HTTP_AUTHORIZATION=f"Bearer {token}").status_code == 404
    assert Note.objects.filter(pk=note.pk).exists()


def test_an_owner_deletes_a_note_and_an_agent_token_writes_one(client, campaign):
    _, token = make_token(campaign.project, name="lab-agent")
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    made = post(client, campaign, {"text": "Array firmware 4.2"}, **auth)
    assert made.status_code == 201 and made.json()["author"] == "agent token lab-agent"
    client.force_login(make_user(campaign.project, role="owner"))
    assert client.delete(f"/api/v1/notes/{made.json()['id']}").status_code == 204
    assert client.get(f"/api/v1/campaigns/{campaign.slug}/notes").json()["count"] == 0
    assert client.delete(f"/api/v1/notes/{made.json()['id']}").status_code == 404
    assert client.delete(f"/api/v1/notes/{2**64}").status_code == 404


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("AV\u202eon", "U+202E"),
        ("two\nlines", "U+000A"),
        ("nul\x00", "U+0000"),
        ("   ", "1-500 characters"),
        ("x" * 501, "1-500 characters"),
    ],
)
def test_unsafe_or_empty_or_long_text_is_refused_with_a_reason(client, campaign, text, words):
    client.force_login(make_user(campaign.project, role="editor"))
    response = post(client, campaign, {"text": text})
    assert response.status_code == 400, response.content
    assert words in response.json()["error"]["message"]
    assert not Note.objects.exists()


def test_a_target_of_another_campaign_is_refused(client, campaign):
    other = make_campaign(project=campaign.project)
    run = add_run(other, {"av": "off"}, {CPU: [10, 20, 30, 40, 50]}, host="FS02")
    client.force_login(make_user(campaign.project, role="editor"))
    response = post(client, campaign, {"text": "wrong run", "run": run.pk})
    assert response.status_code == 400 and f"run {run.pk} is not a run of campaign" in response.text
    response = post(client, campaign, {"text": "both", "run": run.pk, "scenario": run.scenario_id})
    assert response.status_code == 400 and "not both" in response.text
    assert post(client, campaign, {"text": "x" * 500}).status_code == 201

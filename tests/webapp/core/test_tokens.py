"""Agent tokens are stored hashed, shown once, scoped to one project and revocable."""

from __future__ import annotations

import hashlib

import pytest
from django.core.management import call_command

from tests.factories import make_campaign, make_project, make_token
from webapp.core.models import AgentToken

pytestmark = pytest.mark.django_db


def test_it_stores_only_the_digest_of_a_token():
    project = make_project()
    token, plain = make_token(project)
    assert plain.startswith("hr_") and len(plain) >= 40
    stored = AgentToken.objects.get(pk=token.pk)
    assert stored.digest == hashlib.sha256(plain.encode()).hexdigest()
    assert plain not in {stored.digest, stored.hint, stored.name}
    assert stored.hint == plain[:10]


def test_it_authenticates_a_live_token_and_records_its_use():
    token, plain = make_token(make_project())
    found = AgentToken.authenticate(plain)
    assert found is not None and found.pk == token.pk
    assert AgentToken.objects.get(pk=token.pk).last_used_at is not None


def test_it_rejects_revoked_and_unknown_tokens():
    token, plain = make_token(make_project())
    token.revoke()
    assert AgentToken.authenticate(plain) is None
    assert AgentToken.authenticate("hr_" + "x" * 43) is None
    assert AgentToken.authenticate("not-a-token") is None


def test_it_scopes_a_token_to_its_own_projects_campaigns(client):
    mine = make_campaign()
    theirs = make_campaign()
    _, plain = make_token(mine.project)
    auth = {"HTTP_AUTHORIZATION": f"Bearer {plain}"}
    response = client.post(
        "/api/v1/runs", {"campaign": mine.slug, "name": "r1"}, content_type="application/json", **auth
    )
    assert response.status_code == 200
    response = client.post(
        "/api/v1/runs", {"campaign": theirs.slug, "name": "r1"}, content_type="application/json", **auth
    )
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_it_refuses_the_api_without_a_valid_token(client):
    campaign = make_campaign()
    response = client.post(
        "/api/v1/runs",
        {"campaign": campaign.slug, "name": "r"},
        content_type="application/json",
        HTTP_AUTHORIZATION="Bearer hr_wrong",
    )
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"


def test_the_command_prints_a_working_token_once(capsys):
    project = make_project(slug="lab")
    call_command("create_agent_token", "--project", "lab", "--name", "fs01")
    printed = capsys.readouterr().out.strip()
    token = AgentToken.authenticate(printed)
    assert token is not None and token.project_id == project.pk and token.name == "fs01"


def test_a_rejected_bearer_token_gets_401_even_on_a_post(client):
    campaign = make_campaign()
    response = client.post(
        "/api/v1/uploads", {"campaign": campaign.slug}, HTTP_AUTHORIZATION="Bearer hr_nope"
    )
    assert response.status_code == 401


def test_whoami_names_the_tokens_project_and_campaigns(client):
    campaign = make_campaign()
    make_campaign()  # another project's campaign stays invisible
    _, plain = make_token(campaign.project, name="fs01")
    body = client.get("/api/v1/whoami", HTTP_AUTHORIZATION=f"Bearer {plain}").json()
    assert body == {
        "token": "fs01",
        "projects": [
            {"slug": campaign.project.slug, "name": campaign.project.name, "campaigns": [campaign.slug]}
        ],
    }

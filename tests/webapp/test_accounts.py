"""Sign-in, password reset and the agent tokens page."""

from __future__ import annotations

import re

import pytest
from django.core import mail

from tests.factories import make_project, make_user
from webapp.core.models import AgentToken

pytestmark = pytest.mark.django_db


def test_signing_in_leads_to_the_dashboard_and_out_again(client):
    make_user(make_project(), username="tester")
    assert client.get("/").status_code == 302
    response = client.post("/accounts/login/", {"username": "tester", "password": "pw-for-tests-1"})
    assert response.status_code == 302 and response["Location"] == "/"
    assert client.get("/").status_code == 200
    assert client.post("/accounts/logout/").status_code == 302
    assert client.get("/").status_code == 302


def test_a_wrong_password_is_refused_with_a_message(client):
    make_user(username="tester")
    response = client.post("/accounts/login/", {"username": "tester", "password": "nope"})
    assert response.status_code == 200
    assert "didn't match" in response.content.decode()


def test_password_reset_mails_a_working_link(client):
    user = make_user(username="resetme")
    user.email = "resetme@example.com"
    user.save()
    client.post("/accounts/password/reset/", {"email": "resetme@example.com"})
    assert len(mail.outbox) == 1
    link = re.search(r"http://testserver(/accounts/password/reset/\S+/)", str(mail.outbox[0].body)).group(1)
    form = client.get(link, follow=True)
    assert form.status_code == 200
    done = client.post(
        form.redirect_chain[-1][0], {"new_password1": "A-new-secret-77", "new_password2": "A-new-secret-77"}
    )
    assert done.status_code == 302
    assert client.login(username="resetme", password="A-new-secret-77")


def test_an_editor_creates_a_token_that_is_shown_once(client):
    project = make_project()
    client.force_login(make_user(project, role="editor"))
    client.post(f"/accounts/projects/{project.slug}/tokens/new", {"name": "FS01"})
    page = client.get(f"/accounts/projects/{project.slug}/tokens/").content.decode()
    plain = re.search(r'<code id="new-token">(hr_[^<]+)</code>', page).group(1)
    token = AgentToken.authenticate(plain)
    assert token is not None and token.name == "FS01" and token.project_id == project.pk
    again = client.get(f"/accounts/projects/{project.slug}/tokens/").content.decode()
    assert plain not in again and token.hint in again


def test_revoking_a_token_stops_the_agent(client):
    project = make_project()
    token, plain = AgentToken.issue(project, "old")
    client.force_login(make_user(project, role="owner"))
    client.post(f"/accounts/projects/{project.slug}/tokens/{token.pk}/revoke")
    assert AgentToken.authenticate(plain) is None


def test_viewers_and_strangers_cannot_manage_tokens(client):
    project = make_project()
    client.force_login(make_user(project, role="viewer"))
    assert client.get(f"/accounts/projects/{project.slug}/tokens/").status_code == 404
    client.force_login(make_user(make_project(), role="owner"))
    assert client.post(f"/accounts/projects/{project.slug}/tokens/new", {"name": "x"}).status_code == 404
    assert not AgentToken.objects.filter(project=project).exists()

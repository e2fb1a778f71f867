"""Sign-in, password reset and the agent tokens page."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.core.cache import cache

from tests.factories import make_project, make_user
from webapp.core.models import AgentToken

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_limits():
    """Reset-mail counters live in the cache (Redis), which outlives a test; sign-in
    lockouts live in the database and roll back with it."""
    cache.clear()


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
    signed_in = client.post("/accounts/login/", {"username": "resetme", "password": "A-new-secret-77"})
    assert signed_in.status_code == 302 and signed_in["Location"] == "/"


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


def test_a_token_name_with_a_nul_byte_is_refused_with_a_message_not_a_500(client):
    project = make_project()
    client.force_login(make_user(project, role="editor"))
    response = client.post(f"/accounts/projects/{project.slug}/tokens/new", {"name": "FS\x0001"}, follow=True)
    assert response.status_code == 200
    assert "no control characters such as NUL" in response.content.decode()
    assert not AgentToken.objects.filter(project=project).exists()


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


def test_the_new_token_page_is_never_cached_and_the_session_never_holds_the_token(client):
    project = make_project()
    client.force_login(make_user(project, role="editor"))
    created = client.post(f"/accounts/projects/{project.slug}/tokens/new", {"name": "FS02"})
    assert created.status_code == 302
    held = str(dict(client.session.items()))  # what a redirect never followed would leave behind
    page = client.get(created["Location"])
    assert "no-store" in page["Cache-Control"]
    plain = re.search(r'<code id="new-token">(hr_[^<]+)</code>', page.content.decode()).group(1)
    assert plain not in held and plain[3:11] not in held
    assert AgentToken.authenticate(plain) is not None


def wrong_passwords(client, url, username, times, **extra):
    return [
        client.post(url, {"username": username, "password": f"wrong-{i}"}, **extra).status_code
        for i in range(times)
    ]


def test_sign_in_locks_out_after_the_failure_limit_even_with_the_right_password(client, settings):
    make_user(username="target")
    statuses = wrong_passwords(client, "/accounts/login/", "target", settings.AXES_FAILURE_LIMIT)
    # The failure that reaches the limit already answers with the lockout page.
    assert statuses == [200] * (settings.AXES_FAILURE_LIMIT - 1) + [429]
    locked = client.post("/accounts/login/", {"username": "target", "password": "pw-for-tests-1"})
    assert locked.status_code == 429
    html = locked.content.decode()
    assert "Too many failed sign-ins" in html and "minute" in html
    assert client.get("/").status_code == 302  # not signed in


def test_the_admin_sign_in_is_throttled_too(client, settings):
    user = make_user(username="admin1")
    user.is_staff = user.is_superuser = True
    user.save()
    wrong_passwords(client, "/admin/login/", "admin1", settings.AXES_FAILURE_LIMIT)
    locked = client.post("/admin/login/", {"username": "admin1", "password": "pw-for-tests-1"})
    assert locked.status_code == 429 and "Too many failed sign-ins" in locked.content.decode()
    assert client.get("/admin/").status_code == 302


def test_a_lockout_ends_after_the_cool_off(client, settings):
    import time
    from datetime import timedelta

    # Long enough that a busy machine still asks again inside it (1 s was not, under CI load).
    settings.AXES_COOLOFF_TIME = timedelta(seconds=5)
    make_user(username="target")
    wrong_passwords(client, "/accounts/login/", "target", settings.AXES_FAILURE_LIMIT)
    assert (
        client.post("/accounts/login/", {"username": "target", "password": "pw-for-tests-1"}).status_code
        == 429
    )
    time.sleep(5.2)
    signed_in = client.post("/accounts/login/", {"username": "target", "password": "pw-for-tests-1"})
    assert signed_in.status_code == 302


def test_a_stranger_behind_the_same_proxy_does_not_lock_others_out(client, settings):
    settings.TRUSTED_PROXY_HEADER = "X-Forwarded-For"
    make_user(username="target")
    via_proxy = {"REMOTE_ADDR": "10.0.0.2"}
    wrong_passwords(
        client,
        "/accounts/login/",
        "target",
        settings.AXES_FAILURE_LIMIT,
        HTTP_X_FORWARDED_FOR="203.0.113.9",
        **via_proxy,
    )
    refused = client.post(
        "/accounts/login/",
        {"username": "target", "password": "pw-for-tests-1"},
        HTTP_X_FORWARDED_FOR="203.0.113.9",
        **via_proxy,
    )
    assert refused.status_code == 429
    owner = client.post(
        "/accounts/login/",
        {"username": "target", "password": "pw-for-tests-1"},
        HTTP_X_FORWARDED_FOR="198.51.100.4",
        **via_proxy,
    )
    assert owner.status_code == 302


def reset(client, email, **extra):
    return client.post("/accounts/password/reset/", {"email": email}, **extra)


def test_password_reset_mails_are_throttled_per_account(client, settings):
    user = make_user(username="victim")
    user.email = "victim@example.com"
    user.save()
    limit = settings.PASSWORD_RESET_PER_ACCOUNT
    statuses = [
        reset(client, "victim@example.com", REMOTE_ADDR=f"192.0.2.{i}").status_code for i in range(limit + 5)
    ]
    assert len(mail.outbox) == limit
    assert statuses[:limit] == [302] * limit and statuses[-1] == 429
    assert "Too many password-reset requests" in reset(client, "VICTIM@example.com").content.decode()


def test_password_reset_mails_are_throttled_per_address(client, settings):
    limit = settings.PASSWORD_RESET_PER_ADDRESS
    for i in range(limit + 5):
        user = make_user(username=f"many{i}")
        user.email = f"many{i}@example.com"
        user.save()
    statuses = [reset(client, f"many{i}@example.com").status_code for i in range(limit + 5)]
    assert len(mail.outbox) == limit
    assert statuses[:limit] == [302] * limit and statuses[-1] == 429

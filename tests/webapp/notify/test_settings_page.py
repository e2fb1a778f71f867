"""The owners' notifications page: settings, the secret shown once, the test button, the log."""

from __future__ import annotations

import json

import pytest

from tests.factories import make_project, make_user
from tests.webapp.notify.receiver import receiver
from webapp.core.models import Membership
from webapp.notify.models import Attempt, NotifySettings, Subscription
from webapp.notify.signing import verify

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner(client):
    project = make_project("acme")
    user = make_user(project, role="owner", username="olga")
    client.force_login(user)
    return project


def page(slug: str = "acme") -> str:
    return f"/accounts/projects/{slug}/notifications/"


def test_only_owners_open_the_page(client, owner):
    assert client.get(page()).status_code == 200
    client.force_login(make_user(owner, role="editor"))
    assert client.get(page()).status_code == 404
    assert client.post(page() + "save", {"webhook_url": "https://x.example.com/"}).status_code == 404
    assert not NotifySettings.objects.exists()


def test_the_projects_page_links_owners_to_it(client, owner):
    assert page().encode() in client.get("/accounts/projects/").content


def test_saving_a_webhook_makes_a_secret_shown_once(client, owner):
    form = {"webhook_url": "https://hooks.example.com/h", "threshold": "75", "stat": "p95"}
    response = client.post(page() + "save", form, follow=True)
    config = NotifySettings.objects.get(project=owner)
    assert (config.webhook_url, config.threshold, config.stat, config.email) == (
        "https://hooks.example.com/h",
        75.0,
        "p95",
        False,
    )
    assert config.secret.startswith("whsec_") and len(config.secret) == 70
    assert config.secret.encode() in response.content
    again = client.get(page())
    assert config.secret.encode() not in again.content and config.secret[:8].encode() in again.content
    old = config.secret
    client.post(page() + "rotate")
    config.refresh_from_db()
    assert config.secret != old and config.secret.startswith("whsec_")


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("ftp://hooks.example.com/", "must start with https:// or http://"),
        ("https://user:pw@hooks.example.com/", "user name or password"),
        ("http://127.0.0.1:8000/", "not a public address"),
        ("http://169.254.169.254/latest/meta-data/", "not a public address"),
        ("http://[::1]/", "not a public address"),
        ("http://10.1.2.3/", "not a public address"),
    ],
)
def test_unsafe_webhook_urls_are_refused(client, owner, settings, url, says):
    settings.WEBHOOK_ALLOW_PRIVATE = False
    response = client.post(page() + "save", {"webhook_url": url, "threshold": "80"}, follow=True)
    assert says in response.content.decode()
    assert not NotifySettings.objects.exists()


def test_the_test_button_sends_one_signed_delivery_and_logs_it(
    client, owner, eager, django_capture_on_commit_callbacks
):
    with receiver() as hook:
        client.post(page() + "save", {"webhook_url": hook.url, "threshold": "80"})
        config = NotifySettings.objects.get(project=owner)
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(page() + "test", follow=True)
        (delivery,) = hook.received
    assert verify(delivery.body, config.secret, delivery.headers["X-Headroom-Signature"])
    body = json.loads(delivery.body)
    assert (body["event"], body["project"]) == ("test", "acme")
    assert body["delivery"] == delivery.headers["X-Headroom-Delivery"]
    assert f"Test delivery {body['delivery']} queued" in response.content.decode()
    (attempt,) = Attempt.objects.all()
    assert (attempt.outcome, attempt.status_code) == ("delivered", 200)
    log = client.get(page()).content.decode()
    assert body["delivery"][:8] in log and "delivered" in log


def test_the_test_button_wants_a_channel_first(client, owner):
    response = client.post(page() + "test", follow=True)
    assert "Turn on a webhook URL or e-mail first" in response.content.decode()
    assert not Attempt.objects.exists()


def test_owners_choose_who_gets_email(client, owner):
    alice = make_user(owner, username="alice")
    make_user(owner, username="bob")
    ticked = Membership.objects.get(user=alice)
    response = client.post(page() + "subscriptions", {"member": [str(ticked.pk), "999999"]}, follow=True)
    assert "1 member(s) subscribed" in response.content.decode()
    assert list(Subscription.objects.values_list("membership__user__username", flat=True)) == ["alice"]
    client.post(page() + "subscriptions", {})
    assert not Subscription.objects.exists()

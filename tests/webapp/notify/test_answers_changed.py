"""Issue 23 item 4: a stored upload whose campaign's answers changed notifies once, signed, retried.

The series (conftest): patch-c's SMB 3.02 scenario saturates at 322.5 users
against patch-b's 375 (-14 %), SMB 2.1 holds at 375. An upload of logon
times is then stored in patch-c: it is what triggers the recomputation.
"""

from __future__ import annotations

import json

import pytest
from django.core import mail

from tests.factories import make_user
from tests.ingest import ingest_bytes
from tests.webapp.api.test_series_history import SMB302, logons
from tests.webapp.notify.conftest import configure
from tests.webapp.notify.receiver import closed_port_url, receiver
from webapp.core.models import Campaign, Membership, Upload
from webapp.notify.models import Attempt, Notice, NoticeState, Subscription
from webapp.notify.signing import verify

pytestmark = pytest.mark.django_db


def store_upload(capture, data: bytes | None = None, host: str = "C9") -> Upload:
    """Ingest an upload into ``slug`` and run what its commit starts (the notification tasks, eagerly)."""
    with capture(execute=True):
        upload = ingest_bytes(
            Campaign.objects.get(slug="patch-c"),
            data if data is not None else logons([1000.0, 1010.0]),
            host=host,
            filename="logons.csv",
            scenario=SMB302,
        )
    return upload


def test_the_third_campaign_notifies_exactly_the_scenario_that_lost_14_percent(
    series_project, eager, django_capture_on_commit_callbacks
):
    with receiver() as hook:
        config = configure(series_project, hook.url)
        upload = store_upload(django_capture_on_commit_callbacks)
        assert upload.status == Upload.Status.STORED
        (delivery,) = hook.received
    assert delivery.path == "/hooks/headroom?team=fs"
    assert verify(delivery.body, config.secret, delivery.headers["X-Headroom-Signature"])
    assert not verify(delivery.body + b" ", config.secret, delivery.headers["X-Headroom-Signature"])
    body = json.loads(delivery.body)
    assert delivery.headers["X-Headroom-Delivery"] == body["delivery"]
    assert delivery.headers["X-Headroom-Event"] == body["event"] == "answers_changed"
    assert body["series"]["slug"] == "fs-monthly"
    assert (body["campaign"]["slug"], body["campaign"]["series_key"], body["baseline"]) == (
        "patch-c",
        "build 10",
        "patch-b",
    )
    assert body["method"] == {
        "counter": "\\Processor(_Total)\\% Processor Time",
        "stat": "avg",
        "threshold": 75.0,
    }
    assert body["url"] == "https://headroom.example.com/campaigns/patch-c/"
    (change,) = body["changes"]
    assert (change["dims"], change["metric"], change["direction"]) == (SMB302, "saturation_users", "worse")
    assert change["change_pct"] == pytest.approx(-14.0)
    assert (change["baseline_value"], change["value"]) == (pytest.approx(375.0), pytest.approx(322.5))
    (attempt,) = Attempt.objects.all()
    assert (attempt.number, attempt.outcome, attempt.status_code, attempt.target) == (
        1,
        Attempt.Outcome.DELIVERED,
        200,
        hook.url,
    )


def test_recomputing_without_a_change_sends_nothing_more(
    series_project, eager, django_capture_on_commit_callbacks, caplog
):
    with receiver() as hook:
        configure(series_project, hook.url)
        store_upload(django_capture_on_commit_callbacks)
        second = store_upload(django_capture_on_commit_callbacks, logons([990.0, 1005.0]), host="C8")
        assert second.status == Upload.Status.STORED
        assert len(hook.received) == 1
    recomputed = [
        r.getMessage() for r in caplog.records if "notify.tasks.recompute_campaign" in r.getMessage()
    ]
    assert [m.rsplit(": ", 1)[-1] for m in recomputed] == ["'1 notices'", "'0 notices'"]
    assert Notice.objects.count() == 1
    assert NoticeState.objects.filter(campaign__slug="patch-c").exists()


def test_a_failed_upload_sends_nothing(series_project, eager, django_capture_on_commit_callbacks):
    with receiver() as hook:
        configure(series_project, hook.url)
        upload = store_upload(django_capture_on_commit_callbacks, data=b"\x00\x01 not a file we read\n")
        assert upload.status == Upload.Status.FAILED
        assert hook.received == []
    # Not even judged: the changes it would have announced are still unannounced.
    assert not NoticeState.objects.exists() and not Notice.objects.exists()


def test_a_receiver_answering_503_gets_every_retry_and_the_log_shows_each(
    series_project, eager, django_capture_on_commit_callbacks
):
    with receiver(status=503) as hook:
        config = configure(series_project, hook.url)
        store_upload(django_capture_on_commit_callbacks)
        assert len(hook.received) == 5  # the first attempt and four retries
    (notice,) = Notice.objects.all()
    assert {r.headers["X-Headroom-Delivery"] for r in hook.received} == {str(notice.delivery_id)}
    assert all(verify(r.body, config.secret, r.headers["X-Headroom-Signature"]) for r in hook.received)
    attempts = list(notice.attempts.order_by("number"))
    assert [(a.number, a.status_code, a.outcome) for a in attempts] == [
        (1, 503, "retrying"),
        (2, 503, "retrying"),
        (3, 503, "retrying"),
        (4, 503, "retrying"),
        (5, 503, "failed"),
    ]
    assert all(a.next_retry_at is not None for a in attempts[:4]) and attempts[4].next_retry_at is None


def test_a_receiver_that_is_down_gets_the_retries_logged_as_connection_errors(
    series_project, eager, django_capture_on_commit_callbacks
):
    configure(series_project, closed_port_url())
    store_upload(django_capture_on_commit_callbacks)
    attempts = list(Attempt.objects.order_by("number"))
    assert [a.number for a in attempts] == [1, 2, 3, 4, 5]
    assert [a.outcome for a in attempts] == ["retrying"] * 4 + ["failed"]
    assert all(a.status_code is None and "ConnectionRefusedError" in a.error for a in attempts)


def test_a_loopback_receiver_is_refused_without_the_test_setting_and_not_retried(
    series_project, eager, django_capture_on_commit_callbacks, settings
):
    settings.WEBHOOK_ALLOW_PRIVATE = False
    with receiver() as hook:
        configure(series_project, hook.url.replace("127.0.0.1", "localhost"))
        store_upload(django_capture_on_commit_callbacks)
        assert hook.received == []
    (attempt,) = Attempt.objects.all()
    assert attempt.outcome == "failed" and "not a public address" in attempt.error


def test_subscribed_members_get_one_email(series_project, eager, django_capture_on_commit_callbacks):
    configure(series_project, email=True)
    alice = make_user(series_project, role="viewer", username="alice")
    alice.email = "alice@example.com"
    alice.save()
    bob = make_user(series_project, role="editor", username="bob")
    bob.email = "bob@example.com"
    bob.save()
    Subscription.objects.create(membership=Membership.objects.get(user=alice))
    store_upload(django_capture_on_commit_callbacks)
    (message,) = mail.outbox
    assert message.to == ["alice@example.com"]
    assert "1 answer changed against patch-b, 1 worse" in message.subject
    assert "375 -> 322.5 users (-14.0 %, worse)" in message.body
    (attempt,) = Attempt.objects.all()
    assert (attempt.channel, attempt.target, attempt.outcome) == ("email", "alice", "delivered")

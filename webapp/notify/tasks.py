"""The two notification tasks: recompute a campaign's answers, and deliver a notice on one channel.

Both take ids, reload rows and exit quietly when there is nothing to do. A
recomputation waits (retries later) while the campaign still has uploads on
their way, so a notice never describes a half-ingested campaign. A delivery
that fails in a way a later attempt can get past (no connection, a timeout,
408, 429, 5xx, an SMTP error) is retried after each of
``HEADROOM_WEBHOOK_RETRY_DELAYS``; every attempt is a row of the log.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from celery import Task, shared_task
from django.conf import settings
from django.core.mail import send_mail
from django.db import InterfaceError, OperationalError, transaction
from django.utils import timezone

from webapp.core.models import Campaign, Upload
from webapp.notify import answers, pending, signing, webhook
from webapp.notify.models import Attempt, Notice, NoticeState, NotifySettings, Subscription

log = logging.getLogger(__name__)

# Database errors a later attempt can get past; the tasks retry them with backoff.
DATABASE_DOWN = (OperationalError, InterfaceError)
IN_FLIGHT = (Upload.Status.RECEIVED, Upload.Status.QUEUED, Upload.Status.PARSING)
# How often a recomputation waits for the campaign's other uploads before giving up
# (each of those, once stored, schedules its own).
MAX_WAITS = 30


@shared_task(
    bind=True, name="webapp.notify.tasks.recompute_campaign", autoretry_for=DATABASE_DOWN, retry_backoff=True
)
def recompute_campaign(self: Task[Any, Any], campaign_id: int) -> str:
    campaign = Campaign.objects.select_related("series", "project").filter(pk=campaign_id).first()
    if campaign is None or campaign.series is None:
        pending.clear(campaign_id)
        return "skipped"
    if Upload.objects.filter(campaign=campaign, status__in=IN_FLIGHT).exists():
        if self.request.retries < MAX_WAITS:
            raise self.retry(countdown=max(settings.NOTIFY_DELAY_SECONDS, 1), max_retries=MAX_WAITS)
        pending.clear(campaign_id)
        log.warning(
            "campaign %s: uploads still on their way after %s waits; not notified", campaign_id, MAX_WAITS
        )
        return "busy"
    pending.clear(campaign_id)
    config = NotifySettings.objects.filter(project=campaign.project).first()
    if config is None or not config.active:
        return "off"
    notices = record(campaign, config)  # committed, each in its own transaction
    for notice in notices:
        send(notice, config)
    return f"{len(notices)} notices"


def record(campaign: Campaign, config: NotifySettings) -> list[Notice]:
    """A notice for each judged campaign whose significant changes differ from the last notified."""
    assert campaign.series is not None
    method = answers.method_of(config)
    notices = []
    for slug, changes in answers.judged(campaign.series, campaign, config).items():
        with transaction.atomic():
            target = Campaign.objects.select_related("series", "project").get(slug=slug)
            state, _ = NoticeState.objects.select_for_update().get_or_create(
                campaign=target, defaults={"fingerprint": answers.fingerprint([])}
            )
            fingerprint = answers.fingerprint(changes)
            if state.fingerprint == fingerprint:
                continue
            state.fingerprint = fingerprint
            state.save(update_fields=["fingerprint", "updated_at"])
            if not changes:
                continue  # back to no significant change: remembered, not announced
            notice = Notice(project=target.project, campaign=target, event=Notice.Event.ANSWERS_CHANGED)
            notice.body = answers.body(
                notice.event, str(notice.delivery_id), target.project.slug, method, target, changes
            )
            notice.subject, notice.text = answers.mail_text(target, changes)
            notice.save()
            notices.append(notice)
    return notices


def subscribers(project_id: int) -> list[tuple[str, str]]:
    """(user name, address) of the members who subscribed and have an e-mail address."""
    found = Subscription.objects.filter(membership__project_id=project_id).select_related("membership__user")
    people = [(s.membership.user.get_username(), s.membership.user.email) for s in found]
    return sorted((name, email) for name, email in people if email)


def send(notice: Notice, config: NotifySettings) -> None:
    """Queue a delivery on each channel the project has turned on."""
    if config.webhook_url:
        deliver.apply_async((notice.pk, Attempt.Channel.WEBHOOK))
    if config.email and subscribers(notice.project_id):
        deliver.apply_async((notice.pk, Attempt.Channel.EMAIL))


def send_test(config: NotifySettings) -> Notice:
    """The dashboard's test delivery: a ``test`` notice on every channel that is on."""
    notice = Notice(project=config.project, event=Notice.Event.TEST)
    notice.body = answers.body(
        notice.event, str(notice.delivery_id), config.project.slug, answers.method_of(config)
    )
    notice.subject = f"[Headroom] test notification of {config.project.name}"
    notice.text = (
        f"This is a test of the notifications of project {config.project.name}: "
        "when a stored upload changes the answers of a series' campaign, you get an e-mail like this one."
    )
    notice.save()
    transaction.on_commit(lambda: send(notice, config))
    return notice


@dataclass(frozen=True)
class Outcome:
    delivered: bool
    retry: bool = False
    status_code: int | None = None
    error: str = ""


def post_webhook(notice: Notice, config: NotifySettings) -> Outcome:
    body = notice.body.encode()
    headers = {
        signing.SIGNATURE_HEADER: signing.signature(body, config.secret),
        signing.DELIVERY_HEADER: str(notice.delivery_id),
        signing.EVENT_HEADER: notice.event,
    }
    try:
        status = webhook.post(config.webhook_url, body, headers)
    except webhook.RefusedTarget as exc:
        return Outcome(False, error=str(exc))
    except OSError as exc:  # refused, reset, unreachable, timed out, TLS
        return Outcome(False, retry=True, error=f"{type(exc).__name__}: {exc}")
    if 200 <= status < 300:
        return Outcome(True, status_code=status)
    if 300 <= status < 400:
        return Outcome(False, status_code=status, error="redirects are not followed; use the final URL")
    retry = status in (408, 429) or status >= 500
    return Outcome(False, retry=retry, status_code=status)


def send_email(notice: Notice, addresses: list[str]) -> Outcome:
    try:
        send_mail(notice.subject, notice.text, settings.DEFAULT_FROM_EMAIL, addresses)
    except OSError as exc:  # smtplib's errors are OSErrors
        return Outcome(False, retry=True, error=f"{type(exc).__name__}: {exc}")
    return Outcome(True)


@shared_task(bind=True, name="webapp.notify.tasks.deliver", autoretry_for=DATABASE_DOWN, retry_backoff=True)
def deliver(self: Task[Any, Any], notice_id: int, channel: str) -> str:
    notice = Notice.objects.filter(pk=notice_id).first()
    config = NotifySettings.objects.filter(project_id=notice.project_id).first() if notice else None
    if notice is None or config is None:
        return "skipped"
    if channel == Attempt.Channel.WEBHOOK:
        if not config.webhook_url:
            return "off"
        target = config.webhook_url
    else:
        people = subscribers(notice.project_id)
        if not config.email or not people:
            return "off"
        target = ", ".join(name for name, _ in people)
    number = self.request.retries + 1
    attempt = Attempt.objects.create(notice=notice, channel=channel, target=target[:500], number=number)
    if channel == Attempt.Channel.WEBHOOK:
        outcome = post_webhook(notice, config)
    else:
        outcome = send_email(notice, [email for _, email in people])
    delays = settings.WEBHOOK_RETRY_DELAYS
    again = outcome.retry and number <= len(delays)
    now = timezone.now()
    attempt.status_code = outcome.status_code
    attempt.error = outcome.error[:500]
    attempt.finished_at = now
    if outcome.delivered:
        attempt.outcome = Attempt.Outcome.DELIVERED
    elif again:
        attempt.outcome = Attempt.Outcome.RETRYING
        attempt.next_retry_at = now + timedelta(seconds=delays[number - 1])
    else:
        attempt.outcome = Attempt.Outcome.FAILED
    attempt.save()
    if again:
        raise self.retry(countdown=delays[number - 1], max_retries=len(delays))
    return str(attempt.outcome)

"""A project's notification settings on the dashboard (owners): webhook, e-mail, test, log.

The signing secret is made when a webhook URL is first saved, and on
"Rotate"; it is shown once (``webapp.accounts.once``), then only its first
characters. The log shows the latest delivery attempts of the project.
"""

from __future__ import annotations

import logging
import math

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from webapp.accounts import once
from webapp.accounts.roles import project_for
from webapp.analysis.counters import parse_counter
from webapp.core.models import Membership, Project
from webapp.notify import signing, webhook
from webapp.notify.models import Attempt, NotifySettings, Subscription
from webapp.notify.tasks import send_test

log = logging.getLogger(__name__)

LOG_ROWS = 50


def _owned(request: HttpRequest, slug: str) -> tuple[Project, NotifySettings]:
    project = project_for(request.user, slug, at_least=Membership.Role.OWNER)
    config = NotifySettings.objects.filter(project=project).first() or NotifySettings(project=project)
    return project, config


def _back(slug: str) -> HttpResponse:
    return redirect("notify:notifications", slug=slug)


def _show_secret(request: HttpRequest, slug: str, secret: str) -> HttpResponse:
    back = _back(slug)
    once.keep(request, back, "webhook_secret", secret, back["Location"])
    return back


@login_required
def settings_page(request: HttpRequest, slug: str) -> HttpResponse:
    project, config = _owned(request, slug)
    members = project.memberships.select_related("user", "subscription").order_by("user__username")
    context = {
        "project": project,
        "config": config,
        "stats": NotifySettings.Stat.values,
        "members": [(m, hasattr(m, "subscription")) for m in members],
        "attempts": Attempt.objects.filter(notice__project=project).select_related("notice__campaign")[
            :LOG_ROWS
        ],
        "new_secret": once.take(request, "webhook_secret"),
    }
    return once.shown(render(request, "notify/settings.html", context), "webhook_secret", request.path)


def _cleaned(request: HttpRequest, config: NotifySettings) -> str | None:
    """Apply the form to ``config``; the first problem's message, or None."""
    url = (request.POST.get("webhook_url") or "").strip()
    if url:
        try:
            webhook.check(url)
        except webhook.RefusedTarget as exc:
            return f"Webhook URL: {exc}."
        if len(url) > NotifySettings._meta.get_field("webhook_url").max_length:  # type: ignore[operator]
            return "Webhook URL: at most 500 characters."
    counter = (request.POST.get("counter") or "").strip()
    try:
        parse_counter(counter)
    except ValueError as exc:
        return f"Counter: {exc}."
    stat = request.POST.get("stat") or NotifySettings.Stat.AVG
    try:
        threshold = float(request.POST.get("threshold") or "80")
    except ValueError:
        threshold = math.nan
    if stat not in NotifySettings.Stat.values:
        return f"Statistic: one of {', '.join(NotifySettings.Stat.values)}."
    if not math.isfinite(threshold) or threshold <= 0:
        return "Threshold: a number above 0, e.g. 80 (% Processor Time)."
    config.webhook_url, config.counter, config.stat, config.threshold = url, counter, stat, threshold
    config.email = request.POST.get("email") == "on"
    return None


@login_required
@require_POST
def save(request: HttpRequest, slug: str) -> HttpResponse:
    _, config = _owned(request, slug)
    problem = _cleaned(request, config)
    if problem:
        messages.error(request, problem)
        return _back(slug)
    made = bool(config.webhook_url) and not config.secret
    if made:
        config.secret = signing.new_secret()
    config.save()
    messages.success(request, "Notification settings saved.")
    return _show_secret(request, slug, config.secret) if made else _back(slug)


@login_required
@require_POST
def rotate(request: HttpRequest, slug: str) -> HttpResponse:
    _, config = _owned(request, slug)
    config.secret = signing.new_secret()
    config.save()
    messages.success(request, "New signing secret made: the old one no longer signs anything.")
    return _show_secret(request, slug, config.secret)


@login_required
@require_POST
def test(request: HttpRequest, slug: str) -> HttpResponse:
    _, config = _owned(request, slug)
    if config.pk is None or not config.active:
        messages.error(request, "Turn on a webhook URL or e-mail first, then send a test.")
        return _back(slug)
    try:
        notice = send_test(config)
    except Exception as exc:  # kombu raises many types for an unreachable broker
        log.warning("project %s: test notification not queued: %s", slug, exc)
        messages.error(request, "The task queue is unavailable: the test was not sent; try again shortly.")
        return _back(slug)
    messages.success(
        request, f"Test delivery {notice.delivery_id} queued; its attempts appear in the log below."
    )
    return _back(slug)


@login_required
@require_POST
def subscriptions(request: HttpRequest, slug: str) -> HttpResponse:
    """Who of the members gets e-mail: the ticked ones."""
    project, _ = _owned(request, slug)
    ticked = {int(pk) for pk in request.POST.getlist("member") if pk.isdigit()}
    memberships = list(project.memberships.all())
    with transaction.atomic():
        Subscription.objects.filter(membership__project=project).exclude(membership_id__in=ticked).delete()
        for membership in memberships:
            if membership.pk in ticked:
                Subscription.objects.get_or_create(membership=membership)
    messages.success(request, f"{len(ticked & {m.pk for m in memberships})} member(s) subscribed to e-mail.")
    return _back(slug)

"""Notification settings, subscriptions, notices and the delivery log."""

from __future__ import annotations

import uuid

from django.db import models


class NotifySettings(models.Model):
    """A project's notification settings; the capacity method the answers are judged with."""

    class Stat(models.TextChoices):
        AVG = "avg"
        MAX = "max"
        P95 = "p95"

    project = models.OneToOneField(
        "core.Project", on_delete=models.CASCADE, primary_key=True, related_name="notify_settings"
    )
    webhook_url = models.CharField(max_length=500, blank=True)
    # Kept as is: signing needs it. Shown once when made (webapp.accounts.once), then only its hint.
    secret = models.CharField(max_length=100, blank=True)
    email = models.BooleanField(default=False)
    counter = models.CharField(max_length=300, blank=True)  # empty: total CPU (analysis.capacity)
    stat = models.CharField(max_length=8, choices=Stat.choices, default=Stat.AVG)
    threshold = models.FloatField(default=80.0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "notify settings"

    def __str__(self) -> str:
        return f"notifications of {self.project}"

    @property
    def secret_hint(self) -> str:
        return self.secret[:8]

    @property
    def active(self) -> bool:
        return bool(self.webhook_url) or self.email


class Subscription(models.Model):
    """A member who gets the project's notifications by e-mail; gone with the membership."""

    membership = models.OneToOneField(
        "core.Membership", on_delete=models.CASCADE, primary_key=True, related_name="subscription"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.membership} subscribed"


class NoticeState(models.Model):
    """What was last notified for a campaign: recomputing without a change sends nothing."""

    campaign = models.OneToOneField(
        "core.Campaign", on_delete=models.CASCADE, primary_key=True, related_name="notice_state"
    )
    fingerprint = models.CharField(max_length=64)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.campaign}: {self.fingerprint[:12]}"


class Notice(models.Model):
    """One event to deliver: its JSON body is signed exactly as stored."""

    class Event(models.TextChoices):
        ANSWERS_CHANGED = "answers_changed"
        TEST = "test"

    project = models.ForeignKey("core.Project", on_delete=models.CASCADE, related_name="notices")
    campaign = models.ForeignKey(
        "core.Campaign", null=True, blank=True, on_delete=models.SET_NULL, related_name="notices"
    )
    event = models.CharField(max_length=32, choices=Event.choices)
    delivery_id = models.UUIDField(default=uuid.uuid4, unique=True)
    body = models.TextField()
    subject = models.CharField(max_length=300)
    text = models.TextField()  # the e-mail's text
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.event} {self.delivery_id}"


class Attempt(models.Model):
    """One try at delivering a notice on one channel: the project's delivery log."""

    class Channel(models.TextChoices):
        WEBHOOK = "webhook"
        EMAIL = "email"

    class Outcome(models.TextChoices):
        SENDING = "sending"
        DELIVERED = "delivered"
        RETRYING = "retrying"
        FAILED = "failed"

    notice = models.ForeignKey(Notice, on_delete=models.CASCADE, related_name="attempts")
    channel = models.CharField(max_length=16, choices=Channel.choices)
    target = models.CharField(max_length=500)
    number = models.PositiveSmallIntegerField()
    outcome = models.CharField(max_length=16, choices=Outcome.choices, default=Outcome.SENDING)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=500, blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    next_retry_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-started_at", "-pk"]
        indexes = [models.Index(fields=["notice", "channel", "number"], name="attempt_notice_channel")]

    def __str__(self) -> str:
        return f"{self.channel} #{self.number} of {self.notice}: {self.outcome}"

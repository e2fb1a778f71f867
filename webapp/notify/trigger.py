"""After an upload is stored: one recomputation per campaign, however many uploads arrive.

``upload_stored`` runs once the upload's rows are committed (never for a
failed parse, nor for a re-parse that failed and kept the earlier rows). A
pending mark per campaign (``pending``) lets only the first stored upload
send the task, ``HEADROOM_NOTIFY_DELAY_SECONDS`` later; uploads stored
meanwhile ride along. The task clears the mark before it computes, so an
upload stored while it runs schedules the next one. Only campaigns of a
series whose project has a webhook or e-mail turned on are looked at.
"""

from __future__ import annotations

import contextlib
import logging

from django.conf import settings
from django.db import DatabaseError
from django.db.models import Q

from webapp.core.models import Campaign
from webapp.notify import pending
from webapp.notify.tasks import recompute_campaign

log = logging.getLogger(__name__)


def upload_stored(campaign_id: int) -> bool:
    """Schedule the campaign's recomputation if anyone listens; True if a task was sent."""
    listening = Q(project__notify_settings__webhook_url__gt="") | Q(project__notify_settings__email=True)
    try:
        if not Campaign.objects.filter(listening, pk=campaign_id, series__isnull=False).exists():
            return False
    except DatabaseError as exc:  # the upload is stored; its notification is what is lost
        log.warning("campaign %s: notification check skipped (database unavailable): %s", campaign_id, exc)
        return False
    return schedule(campaign_id)


def schedule(campaign_id: int) -> bool:
    """Send the recomputation unless one is pending. Never raises: ingest must not fail for it."""
    try:
        if not pending.mark(campaign_id):
            return False
        recompute_campaign.apply_async((campaign_id,), countdown=settings.NOTIFY_DELAY_SECONDS)
    except Exception as exc:  # redis and kombu raise many types for an unreachable broker
        log.warning(
            "campaign %s: notification check not scheduled (broker unavailable): %s", campaign_id, exc
        )
        with contextlib.suppress(Exception):
            pending.clear(campaign_id)
        return False
    return True

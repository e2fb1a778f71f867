"""Celery tasks. Each takes ids, reloads rows, and exits quietly if there is nothing to do.

One retry policy, declared once (``TRANSIENT`` and ``is_transient``):
connection errors and other database errors a later attempt can get past
retry with jittered exponential backoff; bad input (``ParseError``) and
database errors that would recur (a configured limit, SQLSTATE 53400) never
retry and become the upload's error message.
"""

from __future__ import annotations

import contextlib
import logging
import random
from datetime import datetime, timedelta
from typing import Any

import psycopg
from celery import Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import InterfaceError, OperationalError, close_old_connections, transaction
from django.utils import timezone

from webapp.analysis import window_percentiles
from webapp.core import rawstore
from webapp.core.models import Upload
from webapp.core.uploads import enqueue
from webapp.notify import trigger
from webapp.timeseries import backend, timing_summary
from webapp.timeseries.models import RollupDirty
from workers import ingest, retention, testhooks
from workers.pipeline.errors import ParseError

log = logging.getLogger(__name__)

TRANSIENT: tuple[type[Exception], ...] = (
    OperationalError,
    InterfaceError,
    psycopg.OperationalError,
    ConnectionError,
    TimeoutError,
)


# SQLSTATEs that a later attempt can get past: lost connections (08), server
# shutdown or start-up (57P), serialization failures and deadlocks (40), and
# the server's own resource shortages (53000-53300). A configured limit
# (53400, e.g. TimescaleDB's decompression guard) or a cancelled statement
# fails the same way every time, so it is final.
_TRANSIENT_STATES = ("08", "57P", "40", "53000", "53100", "53200", "53300", "58")


def is_transient(exc: BaseException) -> bool:
    """Whether ``exc`` (one of TRANSIENT) is worth a retry."""
    cause = exc if isinstance(exc, psycopg.Error) else exc.__cause__
    state = cause.sqlstate if isinstance(cause, psycopg.Error) else None
    return state is None or state.startswith(_TRANSIENT_STATES)


def backoff(retries: int) -> float:
    """Exponential backoff with full jitter: up to 2, 4, 8 ... 300 seconds."""
    return random.uniform(0.5, min(300.0, 2.0 ** (retries + 1)))


@shared_task(bind=True, max_retries=None, name="workers.tasks.ingest_upload")
def ingest_upload(self: Task[Any, Any], upload_id: int) -> str:
    task_id = self.request.id or f"local-{upload_id}"
    try:
        upload = ingest.claim(upload_id, task_id)
        if upload is None:
            retries = self.request.retries
            if ingest.claimed_by_lost_attempt(upload_id, task_id) and retries < settings.INGEST_MAX_RETRIES:
                # Our own killed run's session still holds the lock: try again soon.
                raise self.retry(countdown=backoff(retries))
            return "skipped"
        # The claim's lock is held until the outcome is recorded, so the
        # sweeper never mistakes this live task for a dead one.
        try:
            testhooks.pause("claimed", upload)  # test-only, off unless HEADROOM_TEST_PAUSE_DIR is set
            result = ingest.run_pipeline(upload)
        except ParseError as exc:
            ingest.fail(upload_id, exc)
            return "failed"
        except SoftTimeLimitExceeded:
            ingest.fail(upload_id, "parsing took longer than the time limit; the file may be too large")
            return "failed"
        except TRANSIENT as exc:
            if is_transient(exc):
                raise
            cause = exc if isinstance(exc, psycopg.Error) else exc.__cause__
            state = cause.sqlstate if isinstance(cause, psycopg.Error) else ""
            log.error("upload %s: the database refused it (SQLSTATE %s): %s", upload_id, state, exc)
            ingest.fail(
                upload_id,
                f"the database refused to store it (SQLSTATE {state}: {str(exc).strip()}); "
                "retrying would fail the same way, so it was not retried",
            )
            return "failed"
        except Exception as exc:
            log.exception("unexpected error ingesting upload %s", upload_id)
            ingest.fail(
                upload_id,
                f"internal error while parsing ({type(exc).__name__}: {exc}); "
                "the raw file is kept and can be re-parsed after a fix",
            )
            return "failed"
        finally:
            # A broken connection has lost the lock already; the retry below copes.
            with contextlib.suppress(*TRANSIENT):
                ingest.unlock(upload_id)
    except TRANSIENT as exc:
        close_old_connections()
        retries = self.request.retries
        if retries >= settings.INGEST_MAX_RETRIES:
            try:
                ingest.fail(upload_id, f"gave up after {retries + 1} attempts: {exc}")
            except TRANSIENT:
                log.error("upload %s: database unreachable; the sweeper will pick it up", upload_id)
            return "failed"
        # If even this fails, the retry keeps this task id and can re-claim a 'parsing' upload.
        with contextlib.suppress(*TRANSIENT):
            ingest.release(upload_id)
        raise self.retry(exc=exc, countdown=backoff(retries)) from exc
    log.info("upload %s stored: %s rows", upload_id, result.rows)
    # Only a stored upload, once committed, may change a series' answers (webapp.notify).
    campaign_id = upload.campaign_id
    transaction.on_commit(lambda: trigger.upload_stored(campaign_id))
    if result.rollups_stale or result.timings_stale:
        refresh_rollups.apply_async()
    return "stored"


@shared_task(
    name="workers.tasks.refresh_rollups", autoretry_for=TRANSIENT, retry_backoff=True, retry_jitter=True
)
def refresh_rollups() -> int:
    """Recompute the timing summaries of every run whose timings changed (timeseries.timing_summary), then
    the rollups of every dirty time range (timeseries.backend), dropping the kept percentiles those ranges
    touch, then keep the step percentiles of the runs they touched (analysis.window_percentiles); returns
    the ranges done."""
    timing_summary.refresh_pending()
    done: list[tuple[datetime, datetime]] = []
    while True:
        batch = list(RollupDirty.objects.order_by("id")[:200])
        if not batch:
            break
        start = min(d.start for d in batch)
        end = max(d.end for d in batch)
        if not backend.refresh_rollups(start, end):
            return len(done)  # inside a transaction on TimescaleDB: the ranges stay pending (exact reads)
        ranges = [(d.start, d.end) for d in batch]
        window_percentiles.forget_dirty(ranges, [d.pk for d in batch])
        done.extend(ranges)
    window_percentiles.warm(done)
    return len(done)


@shared_task(name="workers.tasks.expire_raw_samples", autoretry_for=TRANSIENT, retry_backoff=True)
def expire_raw_samples() -> int:
    """Retention (see workers.retention): raw samples of uploads stored too long ago."""
    uploads, _ = retention.expire_due()
    if uploads:
        refresh_rollups.apply_async()
    return uploads


@shared_task(name="workers.tasks.sweep_uploads", autoretry_for=TRANSIENT, retry_backoff=True)
def sweep_uploads() -> int:
    """Queue uploads the broker never got (outage), and ones a dead worker left behind.

    A ``parsing`` upload whose claim lock is free lost its worker (see
    ``workers.ingest``) and is queued again at once; the broker would only
    redeliver its message after the visibility timeout. A ``queued`` upload
    still waiting after ``HEADROOM_REQUEUE_AFTER_SECONDS`` is sent again: its
    message may be gone (a worker killed between taking it and claiming the
    upload, or a Redis restart without persistence). If it was only waiting
    in a long queue, the second message finds the upload claimed or stored
    and does nothing. Spool files a killed web process left in the raw store
    are removed after a day.
    """
    now = timezone.now()
    parsing = Upload.objects.filter(status=Upload.Status.PARSING).order_by("pk")
    orphans = [pk for pk in parsing.values_list("pk", flat=True)[:1000] if ingest.reset_if_orphaned(pk)]
    stale_queue = now - timedelta(seconds=settings.REQUEUE_AFTER_SECONDS)
    stale = list(
        Upload.objects.filter(status=Upload.Status.QUEUED, queued_at__lt=stale_queue)
        .order_by("pk")
        .values_list("pk", flat=True)[:1000]
    )
    # Back to received so that enqueue marks them queued again, from now.
    Upload.objects.filter(pk__in=stale, status=Upload.Status.QUEUED).update(status=Upload.Status.RECEIVED)
    # The grace period leaves the API's own enqueue (on commit) to go first.
    waiting = Upload.objects.filter(
        status=Upload.Status.RECEIVED, received_at__lt=now - timedelta(seconds=settings.SWEEP_AFTER_SECONDS)
    ).exclude(pk__in=[*orphans, *stale])
    again = [*orphans, *stale]
    rawstore.clean_spool()
    sent = 0
    for upload_id in [*again, *waiting.order_by("pk").values_list("pk", flat=True)[:1000]]:
        if not enqueue(upload_id):
            break
        sent += 1
    return sent

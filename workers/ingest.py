"""Running the pipeline for one upload: claim -> stages -> outcome.

A worker claims an upload with a conditional update that must change exactly
one row: ``received``/``queued`` uploads, or one already ``parsing`` under
this same task id (a redelivery after a worker crash, or a retry, which keeps
its task id). Anything else -- stored, failed, or claimed by another task --
is left alone and the task exits quietly.

While it works on an upload the task also holds a PostgreSQL session-level
advisory lock on it, taken *before* the claim. The server drops that lock the
moment the worker's connection goes (SIGKILL, OOM kill, power loss), so the
sweeper tells a live claim from an orphaned one by trying the lock -- no
timeout to tune, and never a second task on an upload whose worker still runs.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import BinaryIO

import psycopg
from django.conf import settings
from django.db import DataError, connection
from django.db.models import F, Q
from django.db.models.functions import Now
from django.utils import timezone

from webapp.core import rawstore
from webapp.core.models import Upload
from webapp.timeseries import samples
from workers.pipeline.decode import decode, decode_error
from workers.pipeline.errors import ParseError
from workers.pipeline.load import LoadResult, load
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.registry import detect_parser, get_parser
from workers.pipeline.validate import validate

log = logging.getLogger(__name__)


# The advisory lock key is (CLAIM_LOCK, upload id mod 2**31): PostgreSQL's
# two-int4 form, a key space apart from the one-bigint locks used elsewhere.
CLAIM_LOCK = 0x48524943  # "HRIC"


def _lock_key(upload_id: int) -> list[int]:
    return [CLAIM_LOCK, upload_id % 2**31]


def try_lock(upload_id: int) -> bool:
    """Take this upload's worker lock on this connection; False if a live session holds it."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", _lock_key(upload_id))
        return bool(cursor.fetchone()[0])


def unlock(upload_id: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_unlock(%s, %s)", _lock_key(upload_id))


def claim(upload_id: int, task_id: str) -> Upload | None:
    """Lock and claim the upload for ``task_id``; None (and no lock kept) if it is not ours to do."""
    if not try_lock(upload_id):
        return None  # a live task is working on it
    claimable = Q(status__in=[Upload.Status.RECEIVED, Upload.Status.QUEUED]) | Q(
        status=Upload.Status.PARSING, claimed_by=task_id
    )
    changed = Upload.objects.filter(claimable, pk=upload_id).update(
        status=Upload.Status.PARSING,
        claimed_by=task_id,
        started_at=timezone.now(),
        attempts=F("attempts") + 1,
    )
    if changed != 1:
        unlock(upload_id)
        return None
    return Upload.objects.select_related("campaign__project", "host", "run", "scenario").get(pk=upload_id)


def claimed_by_lost_attempt(upload_id: int, task_id: str) -> bool:
    """True if ``claim`` failed only because an earlier run of this same task still holds the lock.

    When a pool process is SIGKILLed its message is redelivered at once (acks
    late, reject on worker lost), often before PostgreSQL has noticed that the
    dead process's session is gone -- a backend busy with a long statement only
    notices when it next talks to its client. The lock is then held by nobody
    alive, and the redelivery must try again shortly rather than drop its
    message and leave the upload to the sweeper.
    """
    return Upload.objects.filter(pk=upload_id, status=Upload.Status.PARSING, claimed_by=task_id).exists()


def reset_if_orphaned(upload_id: int) -> bool:
    """Give a ``parsing`` upload whose worker died back to ``received``; True if it was requeued.

    An upload whose workers keep dying on it (a file that exhausts memory, say)
    is failed with a message once it has been claimed more often than the
    retry limit allows, instead of killing workers forever.
    """
    if not try_lock(upload_id):
        return False  # its worker is alive
    try:
        orphaned = Upload.objects.filter(pk=upload_id, status=Upload.Status.PARSING)
        changed = orphaned.filter(attempts__lte=settings.INGEST_MAX_RETRIES).update(
            status=Upload.Status.RECEIVED, claimed_by=""
        )
        if not changed and orphaned.exists():
            attempts = orphaned.values_list("attempts", flat=True).first()
            fail(
                upload_id,
                f"the worker parsing this upload stopped without finishing {attempts} times "
                "(killed, or out of memory?), so it is not tried again; the raw file is kept "
                "and can be re-parsed",
            )
    finally:
        unlock(upload_id)
    return changed == 1


def context_for(upload: Upload) -> ParseContext:
    return ParseContext(
        filename=upload.filename,
        timezone=upload.timezone or None,
        host=upload.host.name if upload.host else "",
        max_line_bytes=settings.MAX_LINE_BYTES,
        max_columns=settings.MAX_COLUMNS,
        # Summary reports (DiskSpd text, old fio, Measure-Command) carry no clock
        # time; unless the sender gave one, the upload's arrival stands in for it.
        extra={
            "started_at": upload.received_at.isoformat(),
            "started_at_is_arrival": "false" if "started_at" in (upload.extra or {}) else "true",
            **{str(k): str(v) for k, v in (upload.extra or {}).items()},
        },
    )


def run_pipeline(upload: Upload, opener: Callable[[], BinaryIO] | None = None) -> LoadResult:
    """detect -> decode -> parse -> validate -> normalise/load. Raises ParseError on bad input."""
    open_raw = opener or (lambda: rawstore.open_raw(upload.storage_key))
    decoded = decode(open_raw)
    if upload.kind and upload.kind != "auto":
        parser = get_parser(upload.kind)
    else:
        parser = detect_parser(decoded.head_bytes, decoded.head_text)
    context = context_for(upload)
    try:
        parsed = parser.parse(open_raw if parser.binary else decoded, context)
        parsed = validate(parsed, max_columns=settings.MAX_COLUMNS)
        return load(upload, parsed, encoding="" if parser.binary else decoded.encoding)
    except UnicodeDecodeError as exc:
        raise decode_error(exc, decoded.encoding, parser.name) from None
    except ParseError as exc:
        exc.parser = exc.parser or parser.name
        raise
    except DataError as exc:
        # SQLSTATE class 22: PostgreSQL refused a value the file holds (a name
        # longer than its column, a NUL character ...): bad input, not a bug.
        cause = exc.__cause__
        detail = cause.diag.message_primary if isinstance(cause, psycopg.Error) else None
        raise ParseError(f"a value could not be stored: {detail or exc}", parser=parser.name) from None
    except RecursionError:
        raise ParseError("the file is nested too deeply to be read", parser=parser.name) from None


def kept_rows(upload_id: int) -> int:
    """Rows an earlier, successful parse of this upload still has stored.

    A load is all or nothing, so after a failed (re-)parse these are exactly
    the previous parse's rows: whole, never a part of the failed one.
    """
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM measurement WHERE upload_id = %s",
            [upload_id],
        )
        return samples.count_of_upload(upload_id) + int(cursor.fetchone()[0])


def fail(upload_id: int, error: ParseError | str) -> None:
    """Record a final failure with a human message; status and rows always agree.

    The first parse of an upload fails to ``failed`` with no rows. A re-parse
    that fails leaves the previous parse's rows in place (the failed load
    rolled back), so the upload stays ``stored`` with those rows, and its error
    says that the re-parse failed and that the earlier rows are what is shown.
    """
    details: dict[str, object] = (
        error.as_dict()
        if isinstance(error, ParseError)
        else {"message": error, "line": None, "column": None, "parser": None}
    )
    kept = kept_rows(upload_id)
    if kept:
        details["message"] = (
            f"re-parse failed, so the {kept:,} rows of the previous parse are kept and still shown: "
            f"{details['message']}"
        )
        details["reparse_failed"] = True
        Upload.objects.filter(pk=upload_id).update(
            status=Upload.Status.STORED, error=details, finished_at=timezone.now(), rows=kept
        )
        return
    Upload.objects.filter(pk=upload_id).update(
        status=Upload.Status.FAILED, error=details, finished_at=timezone.now(), rows=0
    )


def release(upload_id: int) -> None:
    """Give a claimed upload back to the queue (before a retry)."""
    # queued_at restarts: the sweeper's requeue limit counts from the retry being sent.
    Upload.objects.filter(pk=upload_id, status=Upload.Status.PARSING).update(
        status=Upload.Status.QUEUED, queued_at=Now()
    )

"""Accepting uploads: the one way raw data enters Headroom.

The upload API, the live-samples and timings endpoints, the demo campaign and
campaign import all call ``accept``: the raw bytes are already in the raw
store, this records the upload (or finds the existing one with the same bytes
in the same campaign) and queues it once the transaction commits. If the
broker is down the upload stays ``received`` and the sweeper queues it later.
"""

from __future__ import annotations

import difflib
import logging
from collections.abc import Mapping
from contextlib import nullcontext
from dataclasses import dataclass, field

from django.db import IntegrityError, connection, transaction

from webapp.core import placements, resubmit
from webapp.core.models import AgentToken, Campaign, Host, Scenario, Upload
from webapp.core.models.campaigns import DIMENSIONS, normalise_dims
from webapp.core.rawstore import StoredRaw

log = logging.getLogger(__name__)

# Scenario dimensions beyond the named columns live in a JSON object: bound them too.
MAX_EXTRA_DIMENSIONS = 32
MAX_DIMENSION_NAME = 64
MAX_EXTRA_VALUE = 200
# Upload.step_users and RunStep.users are PostgreSQL integers.
MAX_USERS = 2**31 - 1


class InvalidMeta(ValueError):
    """A field the sender gave cannot be stored; ``code`` names the field for the API's 400."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def check_text(field_name: str, value: str, max_length: int) -> str:
    """``value`` if PostgreSQL can store it in a column of ``max_length`` characters."""
    if "\x00" in value:
        raise InvalidMeta(f"invalid_{field_name}", f"{field_name} must not contain NUL (0x00) characters")
    if len(value) > max_length:
        raise InvalidMeta(
            f"invalid_{field_name}", f"{field_name} is {len(value):,} characters; at most {max_length} fit"
        )
    return value


def check_scenario(dims: Mapping[str, object]) -> Mapping[str, object]:
    """Scenario dimensions that fit their columns: names and values text (or numbers), no NUL."""
    extras = 0
    for name, value in dims.items():
        if not isinstance(name, str) or not isinstance(value, str | int | float):
            raise InvalidMeta(
                "invalid_scenario", 'scenario must be a JSON object of strings, e.g. {"av": "on"}'
            )
        key = name.strip()
        check_text("scenario", key, MAX_DIMENSION_NAME)
        if key in DIMENSIONS:
            column = Scenario._meta.get_field(key)
            limit = getattr(column, "max_length", None) or MAX_EXTRA_VALUE
        else:
            extras += 1
            limit = MAX_EXTRA_VALUE
        text = str(value).strip()
        if "\x00" in text or len(text) > limit:
            raise InvalidMeta(
                "invalid_scenario",
                f"scenario value of {key!r} must be at most {limit} characters, without NUL characters",
            )
    if extras > MAX_EXTRA_DIMENSIONS:
        raise InvalidMeta(
            "invalid_scenario", f"scenario has {extras} extra dimensions; at most {MAX_EXTRA_DIMENSIONS}"
        )
    return dims


def check_declared(campaign: Campaign, dims: Mapping[str, object]) -> None:
    """Refuse a scenario dimension the campaign does not declare (a typo would make a new scenario).

    A campaign that declares no dimensions takes any: its scenarios are free-form.
    """
    declared = list(campaign.dimensions or [])
    if not declared:
        return
    for key in normalise_dims(dims):
        if key in declared:
            continue
        lower = {name.lower(): name for name in declared}
        close = difflib.get_close_matches(key.lower(), list(lower), n=1, cutoff=0.6)
        hint = f" Did you mean {lower[close[0]]!r}?" if close else ""
        raise InvalidMeta(
            "unknown_dimension",
            f"scenario dimension {key[:MAX_DIMENSION_NAME]!r} is not one of campaign {campaign.slug!r}'s"
            f" dimensions ({', '.join(declared)}).{hint} Fix the name, or add the dimension to the"
            " campaign first.",
        )


@dataclass(frozen=True)
class UploadMeta:
    """What the sender told us about a file (SPEC: POST /api/v1/uploads).

    Checked when made: every field fits its column, so a hostile value is an
    ``InvalidMeta`` (a 400 in the API) and never a database error.
    """

    filename: str = ""
    kind: str = "auto"
    scenario: Mapping[str, object] = field(default_factory=dict)
    host: str = ""
    role: str = Host.Role.CLIENT
    step: int | None = None
    timezone: str = ""
    run: str = ""
    extra: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_text("host", self.host, 255)
        check_text("run", self.run, 200)
        check_text("timezone", self.timezone, 64)
        check_text("kind", self.kind, 32)
        check_text("filename", self.filename, 10_000)
        check_scenario(self.scenario)
        for value in self.extra.values():
            check_text("metadata", value, 1_000)
        if self.step is not None and not 0 <= self.step <= MAX_USERS:
            raise InvalidMeta("invalid_step", f"step must be a user count from 0 to {MAX_USERS:,}")


def accept(
    campaign: Campaign, raw: StoredRaw, meta: UploadMeta, *, token: AgentToken | None = None
) -> tuple[Upload, bool]:
    """Record an upload of ``raw`` and queue it. Returns ``(upload, duplicate)``.

    The API's hot path: with its placement remembered (``placements``) a new
    upload costs one INSERT; the same bytes again from the same host are found by
    the unique constraint on ``(campaign, sha256, host)``. A failed upload sent again with
    other metadata is reopened and queued instead (``resubmit``).
    """
    remembered = placements.is_remembered(campaign, meta)
    if not remembered and (existing := _existing(campaign, raw, meta)) is not None:
        return _again(campaign, existing, meta)
    try:
        upload = _insert(campaign, raw, meta, token)
    except IntegrityError:
        if (existing := _existing(campaign, raw, meta)) is not None:  # the same bytes, maybe concurrently
            return _again(campaign, existing, meta)
        if not remembered:
            raise
        placements.forget(campaign, meta)  # a remembered row was deleted (another thread may forget too)
        upload = _insert(campaign, raw, meta, token)
    transaction.on_commit(lambda: enqueue(upload.pk))
    return upload, False


def _insert(campaign: Campaign, raw: StoredRaw, meta: UploadMeta, token: AgentToken | None) -> Upload:
    placement = placements.place(campaign, meta)
    # One statement in autocommit; a savepoint inside a caller's transaction.
    with transaction.atomic() if connection.in_atomic_block else nullcontext():
        return Upload.objects.create(
            campaign=campaign,
            scenario_id=placement.scenario_id,
            run_id=placement.run_id,
            host_id=placement.host_id,
            role=meta.role,
            step_users=meta.step,
            timezone=meta.timezone,
            extra=dict(meta.extra),
            filename=meta.filename[:255],
            sha256=raw.sha256,
            size=raw.size,
            storage_key=raw.key,
            kind=meta.kind or "auto",
            token=token,
        )


def _again(campaign: Campaign, existing: Upload, meta: UploadMeta) -> tuple[Upload, bool]:
    """The same bytes again: a duplicate, unless a failed upload gets new metadata to try."""
    if not resubmit.reopen(campaign, existing, meta):
        return existing, True
    transaction.on_commit(lambda: enqueue(existing.pk))
    return existing, False


def _existing(campaign: Campaign, raw: StoredRaw, meta: UploadMeta) -> Upload | None:
    """The upload of these bytes from the same machine (``upload_unique_bytes_per_host``)."""
    found = Upload.objects.filter(campaign=campaign, sha256=raw.sha256)
    found = found.filter(host__name=meta.host) if meta.host else found.filter(host__isnull=True)
    return found.first()


def enqueue(upload_id: int) -> bool:
    """Send the ingest task; mark the upload queued. False if the broker is unreachable."""
    from workers.tasks import ingest_upload

    try:
        ingest_upload.apply_async((upload_id,))
    except Exception as exc:  # kombu raises many types for an unreachable broker
        log.warning("broker unavailable; upload %s stays received for the sweeper: %s", upload_id, exc)
        return False
    # On every accepted upload: one plain statement (the ORM's query building costs more than the query).
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE core_upload SET status = %s, queued_at = now() WHERE id = %s AND status = %s",
            [Upload.Status.QUEUED, upload_id, Upload.Status.RECEIVED],
        )
    return True


def requeue(upload: Upload) -> None:
    """Re-parse an upload from its raw bytes (retry after failure, or after a parser fix)."""
    Upload.objects.filter(pk=upload.pk).update(
        status=Upload.Status.RECEIVED,
        error=None,
        claimed_by="",
        queued_at=None,
        started_at=None,
        finished_at=None,
    )
    transaction.on_commit(lambda: enqueue(upload.pk))

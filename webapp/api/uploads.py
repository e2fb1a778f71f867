"""``/api/v1/uploads``: store a raw file, report its status, show the rows it produced."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.db import connection
from django.http import HttpRequest
from django.utils.timezone import now
from ninja import File, Form, Router, Status
from ninja.files import UploadedFile

from webapp.api.auth import any_auth, caller
from webapp.api.errors import ApiError, not_found
from webapp.api.gzip_request import sent_compressed
from webapp.api.schemas import ACCEPT_RESPONSES, ErrorOut, Page, UploadOut
from webapp.core import rawstore
from webapp.core.models import Campaign, Host, Upload
from webapp.core.runs import RunConflict, runs_with_results_of
from webapp.core.text_limits import LimitExceeded, TextLimits
from webapp.core.upload_meta import MAX_USERS, UploadMeta, check_declared
from webapp.core.uploads import accept
from webapp.timeseries import samples as stored_samples
from workers.pipeline.registry import all_parsers

router = Router(tags=["uploads"])


def upload_out(
    request: HttpRequest, upload: Upload, duplicate: bool = False, refiled: bool = False
) -> dict[str, Any]:
    return {
        "id": upload.pk,
        "status": upload.status,
        "status_url": request.build_absolute_uri(f"/api/v1/uploads/{upload.pk}"),
        "kind": upload.kind,
        "parser": upload.parser,
        "campaign": upload.campaign.slug,
        "filename": upload.filename,
        "size": upload.size,
        "sha256": upload.sha256,
        "rows": upload.rows,
        "run": upload.run_id,
        # Every run its results went to: a benchmark file's executions each have their own.
        "runs": sorted(runs_with_results_of(upload.pk) | ({upload.run_id} if upload.run_id else set())),
        "error": upload.error,
        "duplicate": duplicate,
        # The same bytes sent again with other metadata: it was placed anew and parses again.
        "refiled": refiled,
        "received_at": upload.received_at,
        "finished_at": upload.finished_at,
        # Set when retention removed the upload's counter samples (rows then counts what is left).
        "raw_expired_at": upload.raw_expired_at,
    }


def campaign_for(request: HttpRequest, slug: str, *, write: bool = False) -> Campaign:
    """The campaign if the caller may see it (or, with ``write``, add to it); else the uniform 404."""
    found = caller(request)
    if "\x00" in slug or len(slug) > 64:  # no campaign has such a slug (and PostgreSQL refuses NUL)
        raise not_found(f"campaign {slug[:64]!r}")
    campaign = found.campaigns().select_related("project").filter(slug=slug).first()
    if campaign is None:
        raise not_found(f"campaign {slug!r}")
    if write and campaign.project_id not in found.writable_ids:
        raise ApiError(403, "read_only", "your role in this project is viewer: it can read, not add data")
    return campaign


def body_campaign(request: HttpRequest, slug: str) -> Campaign:
    """The campaign the body names, writable; it must be the one ``?campaign=`` named, if any."""
    named = request.GET.get("campaign")
    if named is not None and named != slug:
        raise ApiError(
            400, "campaign_mismatch", f"the query names campaign {named[:64]!r}, the body {slug[:64]!r}"
        )
    return campaign_for(request, slug, write=True)


def parse_scenario(text: str) -> dict[str, object]:
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ApiError(400, "invalid_scenario", f"scenario must be a JSON object: {exc}") from None
    except RecursionError:
        raise ApiError(
            400, "invalid_scenario", "scenario is nested too deeply; it is a flat JSON object"
        ) from None
    if not isinstance(value, dict) or not all(isinstance(v, str | int | float) for v in value.values()):
        raise ApiError(
            400, "invalid_scenario", 'scenario must be a JSON object of strings, e.g. {"av": "on"}'
        )
    return value


def check_kind(kind: str) -> str:
    kind = (kind or "auto").strip()
    if kind != "auto" and kind not in all_parsers():
        known = ", ".join(sorted(all_parsers()))
        raise ApiError(400, "unknown_kind", f"kind {kind!r} is not known; expected 'auto' or one of: {known}")
    return kind


def check_timezone(name: str) -> str:
    if not name:
        return ""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ApiError(
            400, "invalid_timezone", f"timezone {name!r} is not an IANA zone name such as Europe/Berlin"
        ) from None
    return name


def check_started_at(text: str) -> str:
    """When a summary report (DiskSpd text, old fio) started; ISO 8601 with an offset."""
    from datetime import datetime

    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ApiError(400, "invalid_started_at", f"started_at {text!r} is not an ISO 8601 time") from None
    if moment.tzinfo is None:
        raise ApiError(400, "invalid_started_at", "started_at needs a UTC offset, e.g. 2015-06-01T10:00:00Z")
    return moment.isoformat()


def store_and_accept(
    request: HttpRequest,
    campaign: Campaign,
    source: Any,
    meta: UploadMeta,
    *,
    gzipped: bool = False,
    limits: TextLimits | None = None,
) -> tuple[Upload, bool]:
    """The raw bytes first, then the upload row (the one path all endpoints share)."""
    try:
        stored = rawstore.save(source, gzipped=gzipped, compress=sent_compressed(request), inspect=limits)
    except rawstore.TooLarge as exc:
        raise ApiError(413, "too_large", str(exc)) from None
    except LimitExceeded as exc:
        raise ApiError(413, exc.code, f"{meta.filename or 'the file'}: {exc}", {"line": exc.line}) from None
    except rawstore.BadGzip as exc:
        raise ApiError(400, "bad_gzip", str(exc)) from None
    try:
        return accept(campaign, stored, meta, token=caller(request).token)
    except RunConflict as exc:
        raise ApiError(409, "run_conflict", str(exc)) from None


@router.post(
    "/uploads",
    auth=any_auth,
    response=ACCEPT_RESPONSES,
    summary="Upload a result file",
)
def create_upload(
    request: HttpRequest,
    file: File[UploadedFile],
    campaign: Form[str],
    kind: Form[str] = "auto",
    scenario: Form[str] = "",
    host: Form[str] = "",
    role: Form[str] = "client",
    step: Form[int | None] = None,
    timezone: Form[str] = "",
    run: Form[str] = "",
    started_at: Form[str] = "",
) -> Status[dict[str, Any]]:
    """Store the raw file, answer 202 with a status URL and queue normalisation.

    The caller needs write access before a byte of the body is read; naming
    the campaign in the query string as well (``?campaign=slug``) has it
    checked then too. The same bytes again for the same campaign answer 200 with the existing
    upload and ``duplicate: true``. ``Content-Encoding: gzip`` is accepted.
    ``started_at`` dates reports that carry no clock time (DiskSpd text, old
    fio); without it the upload's arrival time stands in.
    """
    target = body_campaign(request, campaign)
    if role not in Host.Role.values:
        raise ApiError(400, "invalid_role", f"role must be 'client' or 'server', not {role!r}")
    if step is not None and not 0 <= step <= MAX_USERS:
        raise ApiError(400, "invalid_step", f"step must be a user count from 0 to {MAX_USERS:,}")
    meta = UploadMeta(
        filename=file.name or "",
        kind=check_kind(kind),
        scenario=parse_scenario(scenario),
        host=host.strip()[:255],
        role=role,
        step=step,
        timezone=check_timezone(timezone.strip()),
        run=run.strip()[:200],
        extra={"started_at": check_started_at(started_at.strip())} if started_at.strip() else {},
    )
    check_declared(target, meta.scenario)
    limits = TextLimits(settings.MAX_LINE_BYTES, settings.MAX_COLUMNS)
    arrived = now()
    upload, duplicate = store_and_accept(request, target, file, meta, limits=limits)
    refiled = not duplicate and upload.received_at < arrived  # an earlier upload took the new metadata
    return Status(200 if duplicate else 202, upload_out(request, upload, duplicate, refiled))


def visible_upload(request: HttpRequest, upload_id: int) -> Upload:
    upload = (
        Upload.objects.select_related("campaign")
        .filter(pk=upload_id, campaign__project_id__in=caller(request).project_ids)
        .first()
    )
    if upload is None:
        raise not_found(f"upload {upload_id}")
    return upload


@router.get("/uploads/{upload_id}", auth=any_auth, response={200: UploadOut, 404: ErrorOut})
def get_upload(request: HttpRequest, upload_id: int) -> dict[str, Any]:
    """The upload's status: received / queued / parsing / stored / failed, rows and error."""
    return upload_out(request, visible_upload(request, upload_id))


# PostgreSQL's OFFSET is a bigint; no upload has anywhere near this many rows.
MAX_OFFSET = 2**62

_SAMPLE_ROWS = f"""
    SELECT s.time, h.name, c.object, c.instance, c.counter, s.value
    FROM {stored_samples.of_upload("%s")} s
    JOIN timeseries_counterseries c ON c.id = s.series_id
    JOIN core_host h ON h.id = c.host_id
    ORDER BY s.series_id, s.time
    LIMIT %s OFFSET %s
"""
_MEASUREMENT_ROWS = """
    SELECT m.time, m.run_id, m.metric, m.subject, m.value, m.unit, m.repetition
    FROM measurement m WHERE m.upload_id = %s
    ORDER BY m.run_id, m.metric, m.subject, m.repetition, m.time
    LIMIT %s OFFSET %s
"""


@router.get("/uploads/{upload_id}/data", auth=any_auth, response={200: Page, 404: ErrorOut})
def upload_data(request: HttpRequest, upload_id: int, offset: int = 0, limit: int = 1000) -> dict[str, Any]:
    """The normalised rows this upload produced (counter samples, then measurements), paged."""
    upload = visible_upload(request, upload_id)
    if offset > MAX_OFFSET:
        raise ApiError(400, "invalid_offset", f"offset must be at most {MAX_OFFSET:,}")
    offset = max(0, offset)
    limit = max(1, min(limit, 10_000))
    with connection.cursor() as cursor:
        samples = stored_samples.count_of_upload(upload.pk)
        cursor.execute("SELECT count(*) FROM measurement WHERE upload_id = %s", [upload.pk])
        measurements = cursor.fetchone()[0]
        results: list[dict[str, Any]] = []
        if offset < samples:
            cursor.execute(_SAMPLE_ROWS, [upload.pk, limit, offset])
            results += [
                {
                    "type": "sample",
                    "time": t.isoformat(),
                    "host": h,
                    "object": o,
                    "instance": i,
                    "counter": c,
                    "value": v,
                }
                for t, h, o, i, c, v in cursor.fetchall()
            ]
        if len(results) < limit and offset + len(results) < samples + measurements:
            m_offset = max(0, offset - samples)
            cursor.execute(_MEASUREMENT_ROWS, [upload.pk, limit - len(results), m_offset])
            results += [
                {
                    "type": "measurement",
                    # isoformat keeps the microseconds (the JSON encoder would cut to milliseconds).
                    "time": t.isoformat(),
                    "run": r,
                    "metric": m,
                    "subject": s,
                    "value": v,
                    "unit": u,
                    "repetition": rep,
                }
                for t, r, m, s, v, u, rep in cursor.fetchall()
            ]
    total = samples + measurements
    following = offset + len(results)
    next_url = (
        request.build_absolute_uri(f"/api/v1/uploads/{upload.pk}/data?offset={following}&limit={limit}")
        if following < total
        else None
    )
    return {"count": total, "offset": offset, "limit": limit, "next": next_url, "results": results}

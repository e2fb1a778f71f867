"""``/api/v1/samples`` and ``/api/v1/timings``: JSON batches from agents.

A batch is checked at once (JSON syntax, shape, size limits) so an agent gets
a 400 it can act on, then stored in the raw store like any file and
normalised by the same workers: nothing an agent sends bypasses the pipeline,
and an identical retry of a batch is recognised by its bytes (200,
``duplicate: true``).
"""

from __future__ import annotations

import io
import json
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from ninja import Router, Status

from webapp.api.auth import any_auth
from webapp.api.errors import ApiError
from webapp.api.schemas import ACCEPT_RESPONSES
from webapp.api.uploads import campaign_for, check_timezone, store_and_accept, upload_out
from webapp.core import rawstore
from webapp.core.models import Host
from webapp.core.uploads import UploadMeta

router = Router(tags=["batches"])


def read_json_body(request: HttpRequest) -> tuple[bytes, dict[str, Any]]:
    """The (inflated) body and its JSON object; 400/413 with a precise message otherwise."""
    encoding = request.META.get("HTTP_CONTENT_ENCODING", "").strip().lower()
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    stream: Any = request
    chunks = (
        rawstore.gunzip_chunks(stream, limit) if encoding == "gzip" else rawstore.plain_chunks(stream, limit)
    )
    try:
        body = b"".join(chunks)
    except rawstore.TooLarge as exc:
        raise ApiError(413, "too_large", str(exc)) from None
    except rawstore.BadGzip as exc:
        raise ApiError(400, "bad_gzip", str(exc)) from None
    try:
        value = json.loads(body)
    except UnicodeDecodeError:
        raise ApiError(400, "invalid_json", "the body is not UTF-8 JSON") from None
    except RecursionError:
        raise ApiError(400, "invalid_json", "the JSON is nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise ApiError(
            400,
            "invalid_json",
            f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}",
            {"line": exc.lineno, "column": exc.colno},
        ) from None
    except ValueError as exc:  # e.g. an integer longer than Python converts (CVE-2020-10735 limit)
        raise ApiError(400, "invalid_json", f"invalid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise ApiError(400, "invalid_batch", "the body must be a JSON object")
    return body, value


def _meta(body: dict[str, Any], kind: str, items: int) -> UploadMeta:
    scenario = body.get("scenario") or {}
    if not isinstance(scenario, dict):
        raise ApiError(400, "invalid_scenario", "scenario must be a JSON object of strings")
    role = str(body.get("role") or "client")
    if role not in Host.Role.values:
        raise ApiError(400, "invalid_role", f"role must be 'client' or 'server', not {role!r}")
    return UploadMeta(
        filename=f"{kind}-batch-{items}.json",
        kind=kind,
        scenario=scenario,
        host=str(body.get("host") or "")[:255],
        role=role,
        timezone=check_timezone(str(body.get("timezone") or "")),
        run=str(body.get("run") or "")[:200],
    )


def _check_columns(samples: list[Any]) -> None:
    """413 now for a batch with more distinct counters than a counter table may have."""
    counters = {
        tuple(str(s.get(k)) for k in ("counter", "object", "instance", "counter_name"))
        for s in samples
        if isinstance(s, dict)
    }
    if len(counters) > settings.MAX_COLUMNS:
        raise ApiError(
            413,
            "too_many_columns",
            f"{len(counters):,} distinct counters in one batch; the limit is {settings.MAX_COLUMNS:,}",
        )


def _accept_batch(request: HttpRequest, kind: str, key: str) -> Status[dict[str, Any]]:
    raw, body = read_json_body(request)
    items = body.get(key)
    if not isinstance(items, list) or not items:
        raise ApiError(400, "invalid_batch", f"'{key}' must be a non-empty list")
    if len(items) > settings.MAX_BATCH_ITEMS:
        raise ApiError(
            413,
            "batch_too_large",
            f"{len(items):,} {key} in one batch; the limit is {settings.MAX_BATCH_ITEMS:,}",
        )
    if kind == "samples":
        _check_columns(items)
    campaign = campaign_for(request, str(body.get("campaign") or ""), write=True)
    meta = _meta(body, kind, len(items))
    if kind == "samples" and not meta.host:
        raise ApiError(400, "missing_host", "a samples batch needs 'host'")
    upload, duplicate = store_and_accept(request, campaign, io.BytesIO(raw), meta)
    return Status(200 if duplicate else 202, upload_out(request, upload, duplicate))


@router.post(
    "/samples",
    auth=any_auth,
    response=ACCEPT_RESPONSES,
)
def post_samples(request: HttpRequest) -> Status[dict[str, Any]]:
    """A batch of live counter samples (JSON, gzip allowed).

    Body: ``{"campaign", "host", "role", "scenario": {...}, "run", "samples":
    [{"time": ISO-8601, "counter": "\\\\\\\\HOST\\\\Object(Instance)\\\\Counter", "value": 12.5}]}``;
    instead of ``counter`` a sample may give ``object``, ``instance`` and ``counter_name``.
    """
    return _accept_batch(request, "samples", "samples")


@router.post(
    "/timings",
    auth=any_auth,
    response=ACCEPT_RESPONSES,
)
def post_timings(request: HttpRequest) -> Status[dict[str, Any]]:
    """A batch of timing results.

    Body: ``{"campaign", "host", "scenario": {...}, "run", "timings": [{"name",
    "started_at", "duration_ms", "repetition", "scenario", "host", "tags"}]}``.
    """
    return _accept_batch(request, "timings", "timings")

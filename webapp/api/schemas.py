"""Response and request shapes of the v1 API (pydantic, via django-ninja)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ninja import Schema


class ErrorDetail(Schema):
    message: str
    line: int | None = None
    column: int | None = None
    parser: str | None = None
    # True when a re-parse failed and the rows of the previous parse are still stored (status stays "stored").
    reparse_failed: bool = False


class UploadOut(Schema):
    id: int
    status: str
    status_url: str
    kind: str
    parser: str
    campaign: str
    filename: str
    size: int
    sha256: str
    rows: int
    run: int | None
    runs: list[int] = []
    error: ErrorDetail | None
    duplicate: bool = False
    refiled: bool = False
    received_at: datetime
    finished_at: datetime | None
    raw_expired_at: datetime | None = None


class Page(Schema):
    count: int
    offset: int
    limit: int
    next: str | None
    results: list[dict[str, Any]]


class ErrorBody(Schema):
    code: str
    message: str
    details: Any = None


class ErrorOut(Schema):
    error: ErrorBody


# What an endpoint that accepts data for ingest can answer: 202 queued, 200 duplicate, or an error.
ACCEPT_RESPONSES: dict[int, type[Schema]] = {
    200: UploadOut,
    202: UploadOut,
    400: ErrorOut,
    403: ErrorOut,
    404: ErrorOut,
    409: ErrorOut,
    413: ErrorOut,
}

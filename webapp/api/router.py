"""The v1 API object: routers, error handlers, OpenAPI document at /api/v1/openapi.json."""

from __future__ import annotations

import logging

from django.db import DataError, InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.http.multipartparser import MultiPartParserError
from ninja import NinjaAPI, Swagger
from ninja.errors import AuthenticationError, HttpError, ValidationError

from webapp.api import analysis, batches, campaigns, hosts, notes, runs, series, traces, uploads, views_json
from webapp.api.errors import ApiError, error_response, handle_api_error
from webapp.core.upload_meta import InvalidMeta

log = logging.getLogger(__name__)

api = NinjaAPI(
    title="Headroom API",
    version="1",
    description="Upload perf traces and timing results; read capacity and comparison results.",
    urls_namespace="api-v1",
    docs_url="/docs",
    # With "ninja" in INSTALLED_APPS, Swagger UI comes from django-ninja's own
    # static files (no CDN), which the Content-Security-Policy ('self') allows.
    docs=Swagger(settings={"deepLinking": True}),
)
api.add_router("", uploads.router)
api.add_router("", campaigns.router)
api.add_router("", batches.router)
api.add_router("", runs.router)
api.add_router("", hosts.router)
api.add_router("", analysis.router)
api.add_router("", traces.router)
api.add_router("", series.router)
api.add_router("", notes.router)
api.add_router("", views_json.router)


@api.exception_handler(ApiError)
def _api_error(request: HttpRequest, exc: ApiError) -> HttpResponse:
    return handle_api_error(request, exc)


@api.exception_handler(ValidationError)
def _validation(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    messages = []
    for item in exc.errors:
        where = ".".join(str(p) for p in item.get("loc", ()) if p not in ("body", "payload", "form"))
        messages.append(f"{where}: {item.get('msg')}" if where else str(item.get("msg")))
    return error_response(400, "invalid_request", "; ".join(messages) or "invalid request", exc.errors)


@api.exception_handler(AuthenticationError)
def _unauthenticated(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    return error_response(
        401,
        "unauthorized",
        "missing or rejected credentials: send 'Authorization: Bearer <agent token>'",
        headers={"WWW-Authenticate": "Bearer"},
    )


@api.exception_handler(HttpError)
def _http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    return error_response(exc.status_code, "http_error", str(exc))


@api.exception_handler(OperationalError)
@api.exception_handler(InterfaceError)
def _database_down(request: HttpRequest, exc: Exception) -> HttpResponse:
    return error_response(
        503, "unavailable", "the database is unavailable; retry shortly", headers={"Retry-After": "5"}
    )


@api.exception_handler(MultiPartParserError)
def _bad_multipart(request: HttpRequest, exc: MultiPartParserError) -> HttpResponse:
    """A multipart body Django cannot split: no boundary, a part's headers past its limit (a huge filename)."""
    return error_response(
        400, "invalid_multipart", f"the body is not multipart/form-data Headroom can read: {str(exc)[:200]}"
    )


@api.exception_handler(InvalidMeta)
def _invalid_meta(request: HttpRequest, exc: InvalidMeta) -> HttpResponse:
    return error_response(400, exc.code, exc.message)


# The last line of defence for input no check foresaw. Each endpoint validates
# what it knows; these keep a value PostgreSQL or Python cannot hold (a NUL
# byte, a number beyond a column, a date past year 9999, JSON nested past the
# recursion limit) a 400 the caller can act on rather than a 500.
@api.exception_handler(DataError)
@api.exception_handler(OverflowError)
@api.exception_handler(RecursionError)
@api.exception_handler(ValueError)
def _unstorable_value(request: HttpRequest, exc: Exception) -> HttpResponse:
    log.warning("refused a value %s %s could not use: %r", request.method, request.path, exc, exc_info=exc)
    return error_response(
        400, "invalid_value", "a parameter has a value that cannot be used (out of range or not text)"
    )


@api.exception_handler(Exception)
def _server_error(request: HttpRequest, exc: Exception) -> HttpResponse:
    """Agents read JSON: an unforeseen failure is a JSON 500 too, logged with its traceback."""
    log.error("unhandled error in %s %s", request.method, request.path, exc_info=exc)
    return error_response(500, "server_error", "the server failed to answer this request; it has been logged")

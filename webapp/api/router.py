"""The v1 API object: routers, error handlers, OpenAPI document at /api/v1/openapi.json."""

from __future__ import annotations

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, ValidationError

from webapp.api import analysis, batches, runs, traces, uploads
from webapp.api.errors import ApiError, error_response, handle_api_error

api = NinjaAPI(
    title="Headroom API",
    version="1",
    description="Upload perf traces and timing results; read capacity and comparison results.",
    urls_namespace="api-v1",
    docs_url="/docs",
)
api.add_router("", uploads.router)
api.add_router("", batches.router)
api.add_router("", runs.router)
api.add_router("", analysis.router)
api.add_router("", traces.router)


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

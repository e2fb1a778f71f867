"""API errors: always JSON ``{"error": {"code", "message", "details"}}`` with a 4xx/5xx status."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults


class ApiError(Exception):
    def __init__(
        self, status: int, code: str, message: str, details: Any = None, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.headers = headers


def error_response(
    status: int, code: str, message: str, details: Any = None, headers: dict[str, str] | None = None
) -> HttpResponse:
    response = JsonResponse({"error": {"code": code, "message": message, "details": details}}, status=status)
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def not_found(what: str) -> ApiError:
    """The one 404 for objects that do not exist *or* belong to another project."""
    return ApiError(404, "not_found", f"{what} not found")


def handle_api_error(request: HttpRequest, exc: ApiError) -> HttpResponse:
    return error_response(exc.status, exc.code, exc.message, exc.details, exc.headers)


def api_aware_404(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Django's 404 handler: JSON under /api/ (a path no API route matches), the HTML page elsewhere."""
    if request.path.startswith("/api/"):
        return error_response(404, "not_found", f"no API endpoint at {request.path}; see /api/v1/docs")
    return defaults.page_not_found(request, exception)


def api_aware_500(request: HttpRequest) -> HttpResponse:
    """Django's 500 handler (errors outside the API's own views, e.g. middleware): JSON under /api/."""
    if request.path.startswith("/api/"):
        return error_response(500, "server_error", "the server failed to answer; the error is logged")
    return defaults.server_error(request)

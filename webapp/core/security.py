"""Content-Security-Policy: only our own static files, scripts allowed by a per-request nonce.

The dashboard loads Chart.js from our static files and runs small inline
scripts; each inline ``<script>`` carries ``nonce="{{ csp_nonce }}"``. No CDN,
no inline event handlers, no ``eval``.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        nonce = secrets.token_urlsafe(16)
        request.csp_nonce = nonce  # type: ignore[attr-defined]
        response = self.get_response(request)
        if settings.CSP_ENABLED and "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = (
                "default-src 'self'; "
                f"script-src 'self' 'nonce-{nonce}'; "
                "style-src 'self'; img-src 'self' data: blob:; font-src 'self'; connect-src 'self'; "
                "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
            )
        return response


def csp_nonce(request: HttpRequest) -> dict[str, str]:
    """Template context: ``{{ csp_nonce }}`` for inline scripts."""
    return {"csp_nonce": getattr(request, "csp_nonce", "")}

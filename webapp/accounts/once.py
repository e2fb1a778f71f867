"""Show a new secret once, on the page a form redirects to, without leaving it readable anywhere.

A new agent token or share link is shown once, after a redirect (so reloading
the page does not make another one). In between, the session holds only the
secret XOR-ed with a one-time pad of random bytes; the pad travels in a
short-lived, HttpOnly, SameSite=Strict cookie scoped to the page that shows
it. Neither half reveals anything alone: a redirect that is never followed
leaves nothing usable in the session store, and the page that shows the
secret drops both halves and is sent with ``Cache-Control: no-store``.
"""

from __future__ import annotations

import base64
import secrets

from django.conf import settings
from django.http import HttpRequest, HttpResponse

COOKIE_PREFIX = "headroom_once_"
# Seconds the pad cookie lives: enough to follow a redirect.
PAD_SECONDS = 120


def _xor(data: bytes, pad: bytes) -> bytes:
    return bytes(a ^ b for a, b in zip(data, pad, strict=True))


def keep(
    request: HttpRequest, response: HttpResponse, kind: str, secret: str, path: str, name: str = ""
) -> None:
    """Hold ``secret`` (and what it is called, ``name``) for the next request to ``path``.

    Half of the secret goes in the session, half in a cookie; the name, which
    reveals nothing, in the session.
    """
    request.session[f"once:{kind}:name"] = name
    data = secret.encode()
    pad = secrets.token_bytes(len(data))
    request.session[f"once:{kind}"] = base64.urlsafe_b64encode(_xor(data, pad)).decode()
    response.set_cookie(
        COOKIE_PREFIX + kind,
        base64.urlsafe_b64encode(pad).decode(),
        max_age=PAD_SECONDS,
        path=path,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Strict",
    )


def take(request: HttpRequest, kind: str) -> str | None:
    """The secret kept for this page, removed from the session; None if either half is missing."""
    sealed = request.session.pop(f"once:{kind}", None)
    pad = request.COOKIES.get(COOKIE_PREFIX + kind)
    if not sealed or not pad:
        return None
    try:
        data = _xor(base64.urlsafe_b64decode(sealed), base64.urlsafe_b64decode(pad))
        return data.decode()
    except (ValueError, UnicodeDecodeError):
        return None  # a pad from another secret, or a tampered cookie


def take_named(request: HttpRequest, kind: str) -> dict[str, str] | None:
    """``{"name", "secret"}`` kept for this page (see ``keep``), removed from the session; None if none."""
    name = str(request.session.pop(f"once:{kind}:name", ""))
    secret = take(request, kind)
    return {"name": name, "secret": secret} if secret else None


def shown(response: HttpResponse, kind: str, path: str) -> HttpResponse:
    """Mark ``response`` as the one showing the secret: never cached, the pad cookie dropped."""
    response["Cache-Control"] = "private, no-store"
    response.delete_cookie(COOKIE_PREFIX + kind, path=path, samesite="Strict")
    return response

"""Webhook signatures: HMAC-SHA256 of the raw body with the project's secret."""

from __future__ import annotations

import hashlib
import hmac
import secrets

SIGNATURE_HEADER = "X-Headroom-Signature"
DELIVERY_HEADER = "X-Headroom-Delivery"
EVENT_HEADER = "X-Headroom-Event"
SECRET_PREFIX = "whsec_"


def new_secret() -> str:
    """A fresh signing secret: 256 random bits, recognisable by its prefix."""
    return SECRET_PREFIX + secrets.token_hex(32)


def signature(body: bytes, secret: str) -> str:
    """The header's value: ``sha256=<hex digest>``."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def verify(body: bytes, secret: str, header: str) -> bool:
    """What a receiver does (docs/notifications.md): compare in constant time."""
    return hmac.compare_digest(signature(body, secret), header)

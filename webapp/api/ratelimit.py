"""Requests per agent token per minute: a fixed-window counter in Redis.

One ``SET NX EX`` + ``INCR`` round trip per agent request, shared by every
web process. The counter lives in the broker's Redis (agents already depend on
it for ingest); without a Redis broker, or with the limit set to 0, there is
no limit. The limiter fails open: when Redis does not answer, requests go
through (the upload path must keep answering 202 during a broker outage) and
Redis is not asked again for a few seconds, so an outage costs one refused
connection, not one per request.
"""

from __future__ import annotations

import logging
import time

import redis
from django.conf import settings

from webapp.api.errors import ApiError
from webapp.core.models import AgentToken

log = logging.getLogger(__name__)

WINDOW_SECONDS = 60
# After Redis failed, skip it this long before trying again.
BACKOFF_SECONDS = 5.0
_client: tuple[str, redis.Redis] | None = None
_skip_until = 0.0


def _redis(url: str) -> redis.Redis:
    global _client
    if _client is None or _client[0] != url:
        # Short timeouts: a dead Redis must not hold up the API.
        _client = (url, redis.Redis.from_url(url, socket_connect_timeout=0.25, socket_timeout=0.25))
    return _client[1]


def _redis_url() -> str:
    url = settings.CELERY_BROKER_URL
    return url if url.startswith(("redis://", "rediss://", "unix://")) else ""


def check(token: AgentToken) -> None:
    """Count one request of ``token``; ApiError 429 with ``Retry-After`` past the limit."""
    global _skip_until
    limit = settings.TOKEN_RATE_PER_MINUTE
    url = _redis_url()
    if limit <= 0 or not url or time.monotonic() < _skip_until:
        return
    now = time.time()
    window = int(now // WINDOW_SECONDS)
    # The digest, not the id: ids repeat across databases sharing one Redis.
    key = f"headroom:rate:{token.digest[:24]}:{window}"
    try:
        pipe = _redis(url).pipeline(transaction=False)
        pipe.set(key, 0, ex=WINDOW_SECONDS * 2, nx=True)
        pipe.incr(key)
        count = int(pipe.execute()[1])
    except redis.RedisError as exc:
        _skip_until = time.monotonic() + BACKOFF_SECONDS
        log.warning("rate limiter: Redis unavailable, not limiting for %.0f s: %s", BACKOFF_SECONDS, exc)
        return
    if count > limit:
        retry_after = max(1, int((window + 1) * WINDOW_SECONDS - now + 0.999))
        raise RateLimited(limit, retry_after)


class RateLimited(ApiError):
    def __init__(self, limit: int, retry_after: int) -> None:
        super().__init__(
            429,
            "rate_limited",
            f"this token made more than {limit:,} requests this minute; retry in {retry_after} s",
            {"limit": limit, "retry_after": retry_after},
            headers={"Retry-After": str(retry_after)},
        )

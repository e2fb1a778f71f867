"""Rate limits: requests per agent token, and events per client address.

**Agent tokens.** A fixed-window counter in Redis: one ``SET NX EX`` +
``INCR`` round trip per agent request, shared by every web process. The
counter lives in the broker's Redis (agents already depend on it for ingest);
without a Redis broker, or with the limit set to 0, there is no limit. The
limiter fails open: when Redis does not answer, requests go through (the
upload path must keep answering 202 during a broker outage) and Redis is not
asked again for a few seconds, so an outage costs one refused connection, not
one per request.

**Client addresses.** ``client_address`` is the one answer to "who is
calling" for every per-address limit (share-link guesses, password-reset
mails, sign-in lockouts through django-axes). ``hit`` counts events per
subject in a fixed window in Django's cache (the broker's Redis, else the
database: never per-process memory, which gunicorn's workers would each keep
apart), and fails open the same way.
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import time

import redis
from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest

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


def client_address(request: HttpRequest) -> str:
    """The caller's IP address: ``REMOTE_ADDR``, or the trusted proxies' header when configured.

    Behind a reverse proxy every request comes from the proxy's address, so a
    per-address limit would lump all visitors together. With
    ``HEADROOM_TRUSTED_PROXY_HEADER`` (e.g. ``X-Forwarded-For``) and
    ``HEADROOM_TRUSTED_PROXY_COUNT`` proxies in front, the address is the entry
    the outermost trusted proxy appended: the ``count``-th from the right.
    Entries left of it were written by the client and are ignored, so a client
    cannot choose its address. Unset (the default), the header is never read:
    anyone can send it. The answer is empty for a request without an address
    (django-axes stores that as NULL).
    """
    remote = str(request.META.get("REMOTE_ADDR") or "")  # empty: no address (a request built in code)
    header: str = settings.TRUSTED_PROXY_HEADER
    if not header:
        return remote
    value = str(request.META.get("HTTP_" + header.upper().replace("-", "_"), ""))
    hops = [hop.strip() for hop in value.split(",") if hop.strip()]
    if not hops:
        return remote
    # Fewer entries than proxies: every entry came from a proxy, the leftmost is the client.
    candidate = hops[-min(settings.TRUSTED_PROXY_COUNT, len(hops))]
    try:
        return str(ipaddress.ip_address(candidate))
    except ValueError:
        return remote


def hit(scope: str, subject: str, limit: int, window_seconds: int) -> int | None:
    """Count one event of ``subject``; past ``limit`` in this window, the seconds until it ends.

    ``limit`` <= 0 means no limit. Subjects are hashed into the key (they may
    be e-mail addresses). When the cache does not answer, nothing is limited.
    """
    if limit <= 0:
        return None
    now = time.time()
    window = int(now // window_seconds)
    key = f"headroom:{scope}:{hashlib.sha256(subject.encode()).hexdigest()[:32]}:{window}"
    try:
        cache.add(key, 0, timeout=window_seconds * 2)
        count = cache.incr(key)
    except (redis.RedisError, ValueError) as exc:
        # ValueError: the key expired between add and incr; count this one as the first.
        if isinstance(exc, redis.RedisError):
            log.warning("rate limiter: cache unavailable, not limiting %s: %s", scope, exc)
        return None
    if count > limit:
        return max(1, int((window + 1) * window_seconds - now + 0.999))
    return None

"""The pending mark of a campaign's recomputation: at most one task on its way per campaign.

Kept in the cache (Redis, or the database cache table without Redis), whose
``add`` is atomic: of several uploads stored at once, exactly one sends the task.
"""

from __future__ import annotations

from django.core.cache import cache

# Long enough to outlast the delay and a few deferrals; short enough that a lost
# message (a broker restarted without persistence) blocks notifications only briefly.
PENDING_SECONDS = 3600


def key(campaign_id: int) -> str:
    return f"notify:pending:{campaign_id}"


def mark(campaign_id: int) -> bool:
    """Mark the campaign pending; False if it already was."""
    return bool(cache.add(key(campaign_id), 1, timeout=PENDING_SECONDS))


def clear(campaign_id: int) -> None:
    """The recomputation starts (or could not be sent): uploads stored from now on schedule the next."""
    cache.delete(key(campaign_id))

"""``/api/v1/campaigns/{slug}/sizing``: servers per scenario for a population, a target and redundancy.

The endpoint itself sits beside ``capacity`` in ``webapp.api.analysis``;
this module checks its parameters and builds the answer.
"""

from __future__ import annotations

import math
from typing import Any

from webapp.analysis.capacity import campaign_capacity
from webapp.analysis.counters import CounterRef, parse_counter
from webapp.analysis.expiry import data_note
from webapp.analysis.sizing import size
from webapp.api.errors import ApiError
from webapp.core.models import Campaign

MAX_USERS = 1_000_000_000
MAX_REDUNDANCY = 100

METHOD = (
    "Users per server is the lowest of two figures: where the {stat} of the counter reaches the target "
    "{target:g}, found like the saturation point (interpolated between steps, extrapolated beyond them), and "
    "the users at which any resource limit (disk queue, disk latency, memory, network, FSCT overload) is "
    "reached first; the scenario says which one decides. Servers = {users:,} users divided by the users per "
    "server, rounded up, plus {redundancy} spare (N+{redundancy}). The range of servers applies the same "
    "arithmetic to the ends of the deciding figure's interval."
)


def checked(counter: str, stat: str, trim: float, target: float, users: int, redundancy: int) -> CounterRef:
    """The counter reference, after checking every parameter (400 with a code for each)."""
    if stat not in ("avg", "max", "p95"):
        raise ApiError(400, "invalid_stat", f"stat must be avg, max or p95, not {stat!r}")
    if not 0 <= trim < 50:
        raise ApiError(400, "invalid_trim", "trim is a percentage of each step, from 0 to below 50")
    if not math.isfinite(target) or target <= 0:
        raise ApiError(400, "invalid_target", "target is a positive number (e.g. 60 for 60 % CPU)")
    if not 1 <= users <= MAX_USERS:
        raise ApiError(400, "invalid_users", f"users is the population to serve, from 1 to {MAX_USERS:,}")
    if not 0 <= redundancy <= MAX_REDUNDANCY:
        raise ApiError(400, "invalid_redundancy", f"redundancy is 0 to {MAX_REDUNDANCY} spare servers")
    if "\x00" in counter or len(counter) > 1000:
        raise ApiError(400, "invalid_counter", "counter is a path like \\Processor(_Total)\\% Processor Time")
    try:
        return parse_counter(counter)
    except ValueError as exc:
        raise ApiError(400, "invalid_counter", str(exc)) from None


def sizing_body(
    campaign: Campaign, users: int, target: float, redundancy: int, counter: str, stat: str, trim: float
) -> dict[str, Any]:
    ref = checked(counter, stat, trim, target, users, redundancy)
    scenarios = campaign_capacity(campaign, ref, stat, target, trim)  # type: ignore[arg-type]
    return {
        "campaign": campaign.slug,
        "counter": ref.path,
        "stat": stat,
        "target": target,
        "users": users,
        "redundancy": redundancy,
        "trim_pct": trim,
        "method": METHOD.format(stat=stat, target=target, users=users, redundancy=redundancy),
        "scenarios": size(scenarios, users, target, redundancy, stat, ref.path),
        "data": data_note(campaign=campaign),
    }

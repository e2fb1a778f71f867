"""What-if sizing: how many servers a user population needs per scenario, with the arithmetic.

The users one server carries is the lowest of two figures (``binding``, see
``limits.binding``): where the chosen statistic reaches the target
utilisation, found exactly like the saturation point (interpolated between
steps, or extrapolated beyond them, see ``analysis.capacity``), and every
resource limit reached before it (disk queue, disk latency, memory, network,
FSCT overload: ``analysis.limits``). The number of servers is
``ceil(users / users_per_server) + redundancy``, and its range applies the
same arithmetic to the ends of the deciding figure's interval. When the
target is not reached in the tested range, the highest tested load stands
in for the counter's figure (so the count is an upper bound); when the first
step already exceeds the target or the deciding limit, no count is given.
The chosen counter's own answer stays under ``counter_*``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from webapp.analysis.capacity import ScenarioCapacity
from webapp.analysis.limits import limit_text


def _per_server(scenario: ScenarioCapacity) -> tuple[float | None, str]:
    sat = scenario.saturation
    if sat.bound == "interpolated" and sat.users:
        return sat.users, "interpolated between the tested steps"
    if sat.bound == "extrapolated" and sat.users and scenario.extrapolation:
        fit = scenario.extrapolation.fit
        return sat.users, f"extrapolated beyond {sat.last_users:,} users ({fit.model} fit, R² {fit.r2:.3f})"
    if sat.bound == "not_reached" and sat.last_users:
        return float(sat.last_users), (
            f"not reached at the highest tested load ({sat.last_users:,} users), which stands in for it: "
            "the count is an upper bound"
        )
    if sat.bound == "below_first_step":
        return (
            None,
            f"already exceeded at the first tested step ({sat.first_users:,} users): test lower loads",
        )
    return None, "no samples"


def _servers(population: int, per_server: float | None, redundancy: int) -> int | None:
    return math.ceil(population / per_server) + redundancy if per_server else None


def _spread(
    population: int, interval: Sequence[float] | None, bound: str, redundancy: int
) -> list[int] | None:
    """The servers at the ends of a users-per-server interval (fewest first)."""
    if not interval or interval[0] <= 0 or bound == "not_reached":
        return None
    low, high = interval
    return [math.ceil(population / high) + redundancy, math.ceil(population / low) + redundancy]


def _decided(scenario: ScenarioCapacity) -> tuple[dict[str, Any], float | None, str]:
    """The binding (``limits.binding``), its users per server and how that figure was found.

    A limit that decides gives its interpolated crossing; one already reached
    at the first tested step gives no figure.
    """
    per_server, how = _per_server(scenario)
    found = scenario.binding()
    if found["by"] == "target":
        return {**found, "users": per_server}, per_server, how
    if found["bound"] == "below_first_step":
        return (
            found,
            None,
            f"already reached at the first tested step ({found['users']:,.0f} users): test lower loads",
        )
    return found, found["users"], "interpolated between the tested steps"


def _assumptions(
    scenario: ScenarioCapacity, found: dict[str, Any], per_server: float | None, how: str, crossing: str
) -> list[str]:
    """The sentences under a row: who decides the users per server, and what else was assumed."""
    counter_per_server, counter_how = _per_server(scenario)
    if found["by"] == "target":
        if per_server is None:
            return [f"Users per server unknown: {how}."]
        return [f"One server carries {per_server:,.0f} users before {crossing}: {how}."]
    limit = (
        limit_text(found) if found["resource"] == "timing" else f"{limit_text(found)} ({found['counter']})"
    )
    if per_server is None:
        head = f"Users per server unknown: {limit} {how}."
    else:
        head = f"One server carries {per_server:,.0f} users before {limit}: {how}."
    if counter_per_server is None:
        return [head, f"The resource limit decides; {crossing}: {counter_how}."]
    return [
        head,
        f"That limit comes first and decides: {crossing} only at {counter_per_server:,.0f} users ({counter_how}).",
    ]


def size(
    scenarios: Sequence[ScenarioCapacity],
    population: int,
    target: float,
    redundancy: int,
    stat: str,
    counter: str,
) -> list[dict[str, Any]]:
    """One row per scenario; ``users_per_server`` and everything after it follow the ``binding``.

    ``counter_*`` keep the chosen counter's own answer at the target, whatever decides.
    """
    rows = []
    crossing = f"the {stat} of {counter} reaches {target:g}"
    for scenario in scenarios:
        found, per_server, how = _decided(scenario)
        counter_per_server, _ = _per_server(scenario)
        servers = _servers(population, per_server, redundancy)
        assumptions = _assumptions(scenario, found, per_server, how, crossing)
        if per_server and servers is not None:
            assumptions.append(
                f"ceil({population:,} / {per_server:,.1f}) = {servers - redundancy} server(s) for the load"
                f" + {redundancy} for redundancy (N+{redundancy}) = {servers}."
            )
        spread = _spread(population, found["interval"], found["bound"], redundancy)
        if spread:
            low, high = found["interval"]
            name = "the chosen counter" if found["by"] == "target" else found["resource"].replace("_", " ")
            assumptions.append(
                f"From {spread[0]} to {spread[1]} servers: the same arithmetic at the ends of {name}'s interval "
                f"({low:,.0f} to {high:,.0f} users per server)."
            )
        assumptions.append(
            "Users are spread evenly; every server is built and configured like the tested one; "
            "the population's work per user matches the test's."
        )
        rows.append(
            {
                "scenario": scenario.scenario_id,
                "label": scenario.label,
                "dims": scenario.dims,
                "users_per_server": per_server,
                "servers": servers,
                "servers_interval": spread,
                "bound": found["bound"],
                "interval": found["interval"],
                "binding": found,
                "counter_users_per_server": counter_per_server,
                "counter_servers": _servers(population, counter_per_server, redundancy),
                "counter_servers_interval": _spread(
                    population, scenario.interval, scenario.saturation.bound, redundancy
                ),
                "counter_bound": scenario.saturation.bound,
                "counter_interval": list(scenario.interval) if scenario.interval else None,
                "assumptions": assumptions,
            }
        )
    return rows

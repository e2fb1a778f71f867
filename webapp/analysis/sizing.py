"""What-if sizing: how many servers a user population needs per scenario, with the arithmetic.

``users_per_server`` is where the chosen statistic reaches the target
utilisation, found exactly like the saturation point (interpolated between
steps, or extrapolated beyond them, see ``analysis.capacity``); the number
of servers is ``ceil(users / users_per_server) + redundancy``. When the
target is not reached in the tested range, the highest tested load stands
in for ``users_per_server`` (so the count is an upper bound); when the
first step already exceeds it, no count is given.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from webapp.analysis.capacity import ScenarioCapacity
from webapp.analysis.limits import limiting


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


def size(
    scenarios: Sequence[ScenarioCapacity],
    population: int,
    target: float,
    redundancy: int,
    stat: str,
    counter: str,
) -> list[dict[str, Any]]:
    rows = []
    for scenario in scenarios:
        per_server, how = _per_server(scenario)
        assumptions = [
            f"One server carries {per_server or 0:,.0f} users before the {stat} of {counter} reaches "
            f"{target:g}: {how}."
            if per_server
            else f"Users per server unknown: {how}."
        ]
        servers = None
        if per_server:
            load = math.ceil(population / per_server)
            servers = load + redundancy
            assumptions.append(
                f"ceil({population:,} / {per_server:,.1f}) = {load} server(s) for the load"
                f" + {redundancy} for redundancy (N+{redundancy}) = {servers}."
            )
        assumptions.append(
            "Users are spread evenly; every server is built and configured like the tested one; "
            "the population's work per user matches the test's."
        )
        head, _ = limiting(scenario.limits)
        if per_server and head and head["users"] is not None and head["users"] < per_server:
            assumptions.append(
                f"{head['resource']} ({head['counter']}) reaches its limit at {head['users']:,.0f} users, "
                "before the target: size by that resource if it binds."
            )
        spread = None
        if scenario.interval and scenario.interval[0] > 0 and scenario.saturation.bound != "not_reached":
            low, high = scenario.interval
            spread = [math.ceil(population / high) + redundancy, math.ceil(population / low) + redundancy]
        rows.append(
            {
                "scenario": scenario.scenario_id,
                "label": scenario.label,
                "dims": scenario.dims,
                "users_per_server": per_server,
                "servers": servers,
                "servers_interval": spread,
                "bound": scenario.saturation.bound,
                "interval": list(scenario.interval) if scenario.interval else None,
                "assumptions": assumptions,
            }
        )
    return rows

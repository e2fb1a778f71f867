"""The saturation rule of the capacity method, as a pure function (no database).

The saturation point is the smallest user count at which the chosen statistic
crosses the threshold (or a step is flagged overloaded), linearly
interpolated between the last step below and the first step at or above.
No crossing: "> N users" (``not_reached``); the first step already crosses:
"< N users" (``below_first_step``). ``extrapolated`` points come from
``analysis.extrapolate`` (a fit beyond the tested steps), never from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Bound = Literal["interpolated", "extrapolated", "not_reached", "below_first_step", "no_data"]


@dataclass(frozen=True)
class StepStat:
    users: int
    value: float | None  # the chosen statistic at this step; None = no samples
    overloaded: bool = False


@dataclass(frozen=True)
class Saturation:
    users: float | None
    bound: Bound
    first_users: int | None
    last_users: int | None

    @property
    def text(self) -> str:
        if self.bound == "interpolated" and self.users is not None:
            return f"{self.users:,.0f} users"
        if self.bound == "extrapolated" and self.users is not None:
            return f"~{self.users:,.0f} users (extrapolated beyond {self.last_users:,})"
        if self.bound == "below_first_step":
            return f"< {self.first_users:,} users"
        if self.bound == "not_reached":
            return f"> {self.last_users:,} users (not reached)"
        return "no data"


def saturation_point(steps: list[StepStat], threshold: float) -> Saturation:
    usable = sorted((s for s in steps if s.value is not None or s.overloaded), key=lambda s: s.users)
    if not usable:
        return Saturation(None, "no_data", None, None)
    first, last = usable[0].users, usable[-1].users
    previous: StepStat | None = None
    for step in usable:
        crossed = step.overloaded or (step.value is not None and step.value >= threshold)
        if crossed:
            if previous is None:
                return Saturation(float(step.users), "below_first_step", first, last)
            if step.value is None or previous.value is None or step.value == previous.value:
                return Saturation(float(step.users), "interpolated", first, last)
            if step.overloaded and step.value < threshold:
                # Crossed by overload, not by the statistic: the step itself is the point.
                return Saturation(float(step.users), "interpolated", first, last)
            fraction = (threshold - previous.value) / (step.value - previous.value)
            users = previous.users + fraction * (step.users - previous.users)
            return Saturation(users, "interpolated", first, last)
        previous = step
    return Saturation(None, "not_reached", first, last)

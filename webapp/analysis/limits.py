"""Which resource saturates first: users before each resource's limit, per scenario.

Every server counter with a limit in the campaign's table
(:class:`~webapp.core.models.ResourceLimit`, defaults in
:data:`~webapp.core.models.DEFAULT_LIMITS`, documented in ``docs/limits.md``)
gets its own users-before-limit: the step averages of that series (runs of
a scenario averaged per user count) and the capacity method's rule --
interpolated between the last step below and the first step at or above
the limit. An instance ``*`` evaluates each instance (each disk, each
network adapter) on its own. Special cases:

* memory falls *to* its limit (``above`` off): the limit is ``percent`` of the
  host's installed memory (host attribute ``memory_mb``) when known, else the
  floor ``threshold`` in MB;
* network is compared as a percentage of the same adapter's ``Current
  Bandwidth`` (bits/s): 100 x 8 x Bytes Total/sec / Current Bandwidth; without
  that series, the adapter's link speed from the host's inventory
  (``webapp.core.inventory.link_speeds``) stands in for it;
* overload is FSCT's overload figure: the first overloaded step;
* a ``timing`` row is a user-experience limit: the users at which a timing's
  per-step mean exceeds its baseline by ``threshold`` ms, or reaches
  ``factor`` x the baseline (``analysis.ux_capacity``; evaluated there and
  merged by the capacity method).

The scenario's capacity is the smallest users-before-limit among the limits
reached; the runner-up and its margin say how close the next resource is.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Q

from webapp.analysis.counters import parse_counter
from webapp.analysis.saturation import Saturation, StepStat, saturation_point
from webapp.analysis.uncertainty import step_bounds
from webapp.analysis.ux_rules import RuleError, UxRule, rule
from webapp.core.inventory import link_speeds
from webapp.core.models import DEFAULT_LIMITS, Campaign, Host, ResourceLimit, Run
from webapp.timeseries.models import CounterSeries

BANDWIDTH = ("Network Interface", "Current Bandwidth")
REACHED = ("interpolated", "below_first_step")
# Series the remarks read (``analysis.remarks``) through the same query; never a limit.
COMPANION_RESOURCES = ("iops",)


@dataclass(frozen=True)
class Limit:
    resource: str
    object: str
    instance: str  # "*" = every instance on its own
    counter: str
    above: bool
    threshold: float
    percent: float | None
    rule: UxRule | None = None  # a timing limit's baseline and margin

    def matches(self, series: CounterSeries) -> bool:
        return (
            series.object == self.object
            and series.counter == self.counter
            and self.instance in ("*", series.instance)
        )


def _limit(row: Mapping[str, Any]) -> Limit:
    if row["resource"] == "timing":
        return Limit("timing", "", "", "", True, float(row["threshold"]), None, timing_rule(row))
    if not row.get("counter"):
        return Limit(row["resource"], "", "", "", True, 0.0, None)
    ref = parse_counter(str(row["counter"]))
    return Limit(
        row["resource"],
        ref.object,
        ref.instance,
        ref.counter,
        bool(row.get("above", True)),
        float(row["threshold"]),
        row.get("percent"),
    )


def timing_rule(row: Mapping[str, Any]) -> UxRule:
    """A timing row's rule: ``threshold`` is the margin in ms unless ``factor`` is set."""
    factor = row.get("factor")
    delta = None if factor is not None else float(row["threshold"])
    try:
        return rule(str(row.get("timing") or ""), str(row.get("baseline") or ""), delta, factor)
    except RuleError as exc:
        raise ValueError(f"timing limit {row.get('timing')!r}: {exc}") from None


COMPANIONS = (Limit("iops", "PhysicalDisk", "_Total", "Disk Transfers/sec", True, math.inf, None),)


def campaign_limits(campaign: Campaign) -> list[Limit]:
    """The campaign's enabled limits; the defaults while it has none of its own."""
    rows: list[Mapping[str, Any]] = list(ResourceLimit.objects.filter(campaign=campaign).values())
    if not rows:
        rows = [dict(row) for row in DEFAULT_LIMITS]
    return [_limit(row) for row in rows if row.get("enabled", True)]


@dataclass(frozen=True)
class Watched:
    """One server series a limit applies to."""

    limit: Limit
    series_id: int
    path: str
    reference_id: int | None  # network: the adapter's Current Bandwidth series
    level: float  # the limit in the compared unit (network: percent of bandwidth)
    host: str = ""  # the server the series is on
    link_speed: float | None = None  # network without a bandwidth series: the inventory's, bits/s


def watched_series(runs: Sequence[Run], limits: Sequence[Limit]) -> dict[int, list[Watched]]:
    """Run id -> the limit series on its server hosts (one query)."""
    counting = [lim for lim in limits if lim.counter]
    servers = {run.pk: [h for h in run.hosts.all() if h.role == Host.Role.SERVER] for run in runs}
    hosts = {h.pk: h for found in servers.values() for h in found}
    if not counting or not hosts:
        return {run.pk: [] for run in runs}
    wanted = Q(object=BANDWIDTH[0], counter=BANDWIDTH[1])
    for lim in counting:
        wanted |= Q(object=lim.object, counter=lim.counter)
    found = list(CounterSeries.objects.filter(wanted, host_id__in=hosts))
    bandwidth = {(s.host_id, s.instance): s.pk for s in found if (s.object, s.counter) == BANDWIDTH}
    speeds = {pk: link_speeds(h.attributes) for pk, h in hosts.items()}
    by_host: dict[int, list[Watched]] = defaultdict(list)
    for series in found:
        for lim in counting:
            if not lim.matches(series):
                continue
            reference = None
            speed = None
            level = lim.threshold
            if lim.resource == "network" and lim.percent is not None:
                reference = bandwidth.get((series.host_id, series.instance))
                if reference is None:
                    speed = speeds[series.host_id].get(series.instance)
                if reference is None and speed is None:
                    continue  # no bandwidth to compare with
                level = lim.percent
            memory = (hosts[series.host_id].attributes or {}).get("memory_mb")
            if lim.resource == "memory" and lim.percent is not None and isinstance(memory, int | float):
                level = lim.percent / 100.0 * float(memory)
            instance = f"({series.instance})" if series.instance else ""
            path = f"\\{series.object}{instance}\\{series.counter}"
            by_host[series.host_id].append(
                Watched(lim, series.pk, path, reference, level, hosts[series.host_id].name, speed)
            )
    return {
        run_pk: [w for h in found_hosts for w in by_host[h.pk]] for run_pk, found_hosts in servers.items()
    }


def extra_series(watched: Sequence[Watched]) -> set[int]:
    """Every series whose step averages the limits need (the limit series and their references)."""
    return {w.series_id for w in watched} | {w.reference_id for w in watched if w.reference_id}


@dataclass(frozen=True)
class ResourceUsers:
    resource: str
    counter: str
    limit: float
    above: bool
    saturation: Saturation
    interval: tuple[float, float] | None = None  # the steps around the crossing (of the runs' mean)
    host: str = ""  # the server whose counter this is ("A, B" when repeated runs ran on different ones)
    describes: str = ""  # a timing limit's own words: "logon time exceeds its baseline by 1 s"

    @property
    def reached(self) -> bool:
        return self.saturation.bound in REACHED and self.saturation.users is not None

    def as_dict(self) -> dict[str, Any]:
        return {
            "resource": self.resource,
            "counter": self.counter,
            "limit": self.limit,
            "above": self.above,
            "users": self.saturation.users if self.reached else None,
            "bound": self.saturation.bound,
            "text": self.saturation.text,
            "interval": list(self.interval) if self.interval else None,
            "host": self.host,
            **({"limit_text": self.describes} if self.describes else {}),
        }


def by_users(results: Sequence[ResourceUsers]) -> list[ResourceUsers]:
    """Smallest users-before-limit first; limits not reached last."""
    return sorted(results, key=lambda r: (r.saturation.users if r.reached else math.inf, r.resource, r.host))


def _value(watched: Watched, step_pk: int, averages: Mapping[tuple[int, int], float]) -> float | None:
    value = averages.get((step_pk, watched.series_id))
    if value is None:
        return None
    if watched.reference_id is not None:
        bandwidth = averages.get((step_pk, watched.reference_id))
        if not bandwidth:
            return None
        value = 100.0 * 8.0 * value / bandwidth
    elif watched.link_speed:
        value = 100.0 * 8.0 * value / watched.link_speed
    return value if watched.limit.above else -value


def scenario_limits(
    runs: Sequence[Run],
    watched: Mapping[int, Sequence[Watched]],
    averages: Mapping[tuple[int, int], float],
    overloaded: set[int],
    limits: Sequence[Limit],
    per_server: bool = False,
) -> tuple[list[ResourceUsers], dict[str, dict[int, float]]]:
    """Users before each limit for one scenario's runs, smallest first (not reached last).

    A server's counter is never averaged with another server's: with ``per_server`` (a run
    held several servers) each server's series is its own curve, named by its ``host``;
    otherwise repeated runs are averaged per user count, wherever each ran. Also the
    companions' step averages per user count (resource -> users -> mean of runs).
    """
    curves: dict[tuple[str, str, str], tuple[Watched, dict[int, list[float]]]] = {}
    hosts: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    for run in runs:
        for w in watched.get(run.pk, ()):
            key = (w.limit.resource, w.path, w.host if per_server else "")
            _, per_users = curves.setdefault(key, (w, defaultdict(list)))
            hosts[key].add(w.host)
            for step in run.steps.all():
                value = _value(w, step.pk, averages)
                if value is not None:
                    per_users[step.users].append(value)
    results = []
    companions: dict[str, dict[int, float]] = {}
    for key, (w, per_users) in curves.items():
        resource, path, _ = key
        points = [StepStat(u, sum(v) / len(v)) for u, v in sorted(per_users.items())]
        if resource in COMPANION_RESOURCES:
            if per_server:  # the fleet's IOPS: every server's step averages summed (analysis.hosts: a rate)
                into = companions.setdefault(resource, {})
                for p in points:
                    if p.value is not None:
                        into[p.users] = into.get(p.users, 0.0) + p.value
            else:
                companions[resource] = {p.users: p.value for p in points if p.value is not None}
            continue
        level = w.level if w.limit.above else -w.level
        found = saturation_point(points, level)
        results.append(
            ResourceUsers(
                resource,
                path,
                w.level,
                w.limit.above,
                found,
                step_bounds(points, found),
                ", ".join(sorted(hosts[key])),
            )
        )
    if any(lim.resource == "overload" for lim in limits):
        flags: dict[int, bool] = defaultdict(bool)
        for run in runs:
            for step in run.steps.all():
                flags[step.users] |= step.pk in overloaded
        if any(flags.values()):
            points = [StepStat(u, 1.0 if flag else 0.0) for u, flag in sorted(flags.items())]
            results.append(
                ResourceUsers("overload", "FSCT overload", 0.0, True, saturation_point(points, 1.0))
            )
    return by_users(results), companions


def limiting(results: Sequence[ResourceUsers]) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The limiting resource ``{resource, counter, users}`` and the runner-up with its margin."""
    reached = [r for r in results if r.reached]
    if not reached:
        return None, None
    first = reached[0]
    head = {
        "resource": first.resource,
        "counter": first.counter,
        "users": first.saturation.users,
        "host": first.host,
        **({"limit_text": first.describes} if first.describes else {}),
    }
    others = [r for r in reached if r.resource != first.resource]
    if not others:
        return head, None
    second = others[0]
    margin = (second.saturation.users or 0.0) - (first.saturation.users or 0.0)
    return head, {
        "resource": second.resource,
        "counter": second.counter,
        "users": second.saturation.users,
        "margin": margin,
        "host": second.host,
        **({"limit_text": second.describes} if second.describes else {}),
    }


def limit_text(limit: Mapping[str, Any]) -> str:
    """ "disk latency reaches 20 ms", "available memory falls to 512 MB" ... from a limit row."""
    if limit.get("limit_text"):
        return str(limit["limit_text"])
    resource, value = str(limit["resource"]), float(limit.get("limit") or 0)
    if resource == "disk_latency":
        return f"disk latency reaches {value * 1000:g} ms"
    if resource == "disk_queue":
        return f"the disk queue reaches {value:g}"
    if resource == "memory":
        return f"available memory falls to {value:,.0f} MB"
    if resource == "network":
        return f"the network reaches {value:g} % of its bandwidth"
    if resource == "overload":
        return "FSCT reports overload"
    if resource == "cpu":
        return f"CPU reaches {value:g} %"
    return f"{resource.replace('_', ' ')} reaches {value:g}"


def binding(
    results: Sequence[ResourceUsers],
    own: Saturation,
    counter: str,
    interval: tuple[float, float] | None,
    host: str = "",
) -> dict[str, Any]:
    """Who decides the users per server: the chosen counter at its threshold, or a limit reached first.

    The lowest of the chosen counter's point and every limit reached (``limiting``).
    Not reached in the tested range, the most users tested stand in for the
    counter's point; already past it at the first step, the counter decides.
    ``by`` is ``"target"`` (the chosen counter) or ``"limit"``; ``resource`` names
    the counter by its row in the limit table when it has one, else ``"counter"``; ``host`` the
    server it was reached on (``""``: the run's one server);
    ``interval`` is the deciding figure's (``interval`` given: the counter's).
    """
    name = next((r.resource for r in results if r.counter == counter), "counter")
    mine: dict[str, Any] = {
        "resource": name,
        "counter": counter,
        "users": own.users,
        "bound": own.bound,
        "host": host,
        "by": "target",
        "interval": list(interval) if interval else None,
    }
    first = next((r for r in results if r.reached), None)
    if first is None or own.bound == "below_first_step" or first.saturation.users is None:
        return mine
    stand_in = own.users if own.users is not None else own.last_users
    if stand_in is not None and first.saturation.users >= stand_in:
        return mine
    return {
        "resource": first.resource,
        "counter": first.counter,
        "users": first.saturation.users,
        "bound": first.saturation.bound,
        "host": first.host,
        "by": "limit",
        "limit": first.limit,
        "interval": list(first.interval) if first.interval else None,
        **({"limit_text": first.describes} if first.describes else {}),
    }

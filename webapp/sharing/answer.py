"""The sentences a stakeholder reads first: short scenario names and one headline per scenario.

Scenarios are named by the dimensions that differ between them only
(``SMB 3.02 · SSD · AV on-access off``), never the whole ``key=value`` list.
A headline states the capacity answer with its unit and the resource that
limits it: "SMB 3.02 on SSD with AV on-access off carries 860 users before
CPU reaches 80 %", or, when another resource gives out first, "... carries
640 users before disk latency reaches 20 ms (CPU: 820 users)"; a user-experience limit reads
"... carries 720 users before logon time exceeds its baseline by 1 s (CPU would allow 860)".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from webapp.analysis.counters import DEFAULT_COUNTER
from webapp.analysis.limits import limit_text
from webapp.sharing.marks import Mark, Part, limit_parts, plain

# How a dimension's value reads in a sentence ("SMB 3.02 on SSD with AV on").
_PHRASES: dict[str, str] = {
    "server_os": "Windows Server {v}",
    "smb_dialect": "SMB {v}",
    "disk_type": "on {v}",
    "av": "with AV {v}",
    "ca_share": "CA share {v}",
    "power_profile": "{v} power profile",
    "redirection": "redirection {v}",
    "server_cpu_load": "at {v} % background CPU",
}
# How a dimension's value reads in a short label ("SMB 3.02 · SSD · AV on").
_SHORT: dict[str, str] = {
    "server_os": "{v}",
    "smb_dialect": "SMB {v}",
    "disk_type": "{v}",
    "av": "AV {v}",
    "ca_share": "CA {v}",
    "power_profile": "{v} power",
    "redirection": "redirection {v}",
    "server_cpu_load": "CPU load {v} %",
    "study": "{v}",
}
_STATS = {"avg": "", "max": "maximum ", "p95": "95th percentile "}


def varying(dims_list: Sequence[Mapping[str, str]]) -> list[str]:
    """Dimensions whose value is not the same in every scenario, in first-seen order."""
    keys: list[str] = []
    for dims in dims_list:
        keys.extend(k for k in dims if k not in keys)
    return [k for k in keys if len({d.get(k, "") for d in dims_list}) > 1]


def short_label(dims: Mapping[str, str], keys: Sequence[str]) -> str:
    parts = [_SHORT.get(k, k + " {v}").format(v=dims[k]) for k in keys if dims.get(k)]
    return " · ".join(parts) or "all scenarios"


def _own_keys(dims: Mapping[str, str], keys: Sequence[str]) -> list[str]:
    """The differing dimensions; with nothing to tell apart (one scenario), all of its own but the study."""
    return list(keys) or [k for k in dims if k != "study"]


def phrase(dims: Mapping[str, str], keys: Sequence[str]) -> str:
    """The scenario as the subject of a sentence: "SMB 3.02 on SSD with AV on-access off"."""
    shown = _own_keys(dims, keys)
    parts = [_PHRASES.get(k, k.replace("_", " ") + " {v}").format(v=dims[k]) for k in shown if dims.get(k)]
    if not parts:
        return "The tested server"
    text = " ".join(parts)
    if text.startswith(("on ", "with ", "at ")):
        return "The server " + text
    return text[0].upper() + text[1:]


def _number(value: float) -> str:
    return f"{value:,.0f}"


def counter_name(counter: str) -> str:
    if counter in ("", DEFAULT_COUNTER) or counter.endswith("% Processor Time"):
        return "CPU"
    return counter.rsplit("\\", 1)[-1]


def threshold_text(counter: str, threshold: float) -> str:
    unit = " %" if "%" in counter.rsplit("\\", 1)[-1] or counter in ("", DEFAULT_COUNTER) else ""
    return f"{threshold:g}{unit}"


def _users(value: float, key: str, words: str = " users") -> Mark:
    return Mark(f"{_number(value)}{words}", key, "users", value)


def headline(
    scenario: Mapping[str, Any], keys: Sequence[str], counter: str, stat: str, threshold: float
) -> str:
    """One sentence with the scenario's answer (see the module docstring)."""
    return plain(headline_parts(scenario, keys, counter, stat, threshold))


def headline_parts(
    scenario: Mapping[str, Any], keys: Sequence[str], counter: str, stat: str, threshold: float, at: str = ""
) -> list[Part]:
    """The headline with its figures marked: ``at`` is the scenario's pointer in the capacity answer."""
    subject = phrase(scenario["dims"], keys)
    crossing = crossing_parts(counter, stat, threshold, "/threshold")
    users, bound = scenario.get("saturation_users"), scenario.get("bound")
    steps = [s["users"] for s in scenario.get("steps", [])]
    limiting = scenario.get("limiting")
    if limiting and limiting.get("users") is not None and (users is None or limiting["users"] < users - 0.5):
        limits = list(scenario.get("limits", []))
        row = next((i for i, r in enumerate(limits) if r["counter"] == limiting["counter"]), None)
        limit = (
            limit_parts(limits[row], f"{at}/limits/{row}/limit")
            if row is not None
            else [limit_text(limiting)]
        )
        own: list[Part] = []
        if users is not None:
            mine = f"{at}/saturation_users"
            if limiting.get("resource") == "timing":  # user experience: what the counter would allow
                own = [f" ({counter_name(counter)} would allow ", _users(users, mine, ""), ")"]
            else:
                own = [f" ({counter_name(counter)}: ", _users(users, mine), ")"]
        return [
            f"{subject} carries ",
            _users(limiting["users"], f"{at}/limiting/users"),
            " before ",
            *limit,
            *own,
            ".",
        ]
    if bound == "interpolated" and users is not None:
        return [f"{subject} carries ", _users(users, f"{at}/saturation_users"), " before ", *crossing, "."]
    most = max(range(len(steps)), key=lambda i: steps[i]) if steps else 0
    if bound == "extrapolated" and users is not None:
        return [
            f"{subject} carries about ",
            _users(users, f"{at}/saturation_users"),
            " before ",
            *crossing,
            " (extrapolated beyond the ",
            _users(steps[most], f"{at}/steps/{most}/users", ""),
            " tested).",
        ]
    if bound == "not_reached" and steps:
        return [
            f"{subject} carries more than ",
            _users(steps[most], f"{at}/steps/{most}/users"),
            ", the most tested, before ",
            *crossing,
            ".",
        ]
    if bound == "below_first_step" and steps:
        fewest = min(range(len(steps)), key=lambda i: steps[i])
        return [
            f"{subject} is past ",
            *crossing[1:],
            f" {counter_name(counter)} already at ",
            _users(steps[fewest], f"{at}/steps/{fewest}/users"),
            ", the fewest tested.",
        ]
    return [f"{subject}: no load steps with samples of {counter_name(counter)}."]


def crossing_text(counter: str, stat: str, threshold: float) -> str:
    """ "CPU reaches 80 %", "maximum CPU reaches 60 %"."""
    return plain(crossing_parts(counter, stat, threshold, ""))


def crossing_parts(counter: str, stat: str, threshold: float, key: str) -> list[Part]:
    """The crossing with its threshold marked at ``key`` (``/threshold`` of capacity, ``/target`` of sizing)."""
    shown = threshold_text(counter, threshold)
    unit = "%" if shown.endswith(" %") else ""
    return [f"{_STATS.get(stat, '')}{counter_name(counter)} reaches ", Mark(shown, key, unit, threshold)]


def decider(binding: Mapping[str, Any] | None, crossing: str) -> str:
    """What decides the users per server: "the disk queue reaches 10", or the counter's own crossing."""
    return plain(decider_parts(binding, [crossing], ""))


def decider_parts(binding: Mapping[str, Any] | None, crossing: Sequence[Part], at: str) -> list[Part]:
    if binding and binding.get("by") == "limit":
        return limit_parts(binding, f"{at}/binding/limit")
    return list(crossing)


def sizing_sentence(
    row: Mapping[str, Any], keys: Sequence[str], users: int, redundancy: int, crossing: str = ""
) -> str:
    """ "7 servers (N+1) for 3,000 users with HDD, AV off: 522 users per server before the disk queue
    reaches 10 (CPU reaches 60 % only at 678 users per server, which alone would mean 6 servers)."."""
    return plain(sizing_parts(row, keys, users, redundancy, [crossing] if crossing else []))


def _servers(count: int, key: str) -> Mark:
    return Mark(f"{count} {'server' if count == 1 else 'servers'}", key, "servers", count)


def sizing_parts(
    row: Mapping[str, Any],
    keys: Sequence[str],
    users: int,
    redundancy: int,
    crossing: Sequence[Part],
    at: str = "",
) -> list[Part]:
    """The sizing sentence with its figures marked: ``at`` is the row's pointer in the sizing answer."""
    name = short_label(row["dims"], _own_keys(row["dims"], keys)).replace(" · ", ", ")
    binding = row.get("binding")
    asked = Mark(f"{users:,} users", "/users", "users", users)
    if row.get("servers") is None:
        reason: list[Part] = []
        if binding:
            reason = [" (", *decider_parts(binding, crossing, at), " already at the fewest users tested)"]
        return ["Servers for ", asked, f" with {name}: unknown (users per server not measured", *reason, ")."]
    parts: list[Part] = [
        _servers(row["servers"], f"{at}/servers"),
        f" (N+{redundancy}) for ",
        asked,
        f" with {name}",
    ]
    if not binding or not crossing:
        return [*parts, "."]
    parts += [": ", _users(row["users_per_server"], f"{at}/users_per_server"), " per server before "]
    parts += decider_parts(binding, crossing, at)
    if binding.get("by") == "limit" and row.get("counter_users_per_server"):
        parts += [
            " (",
            *crossing,
            " only at ",
            _users(row["counter_users_per_server"], f"{at}/counter_users_per_server"),
            " per server, which alone would mean ",
            _servers(row["counter_servers"], f"{at}/counter_servers"),
            ")",
        ]
    return [*parts, "."]


def bar(scenario: Mapping[str, Any], counter: str, stat: str, threshold: float) -> dict[str, Any]:
    """A bar of the report's chart: the binding figure, what decides it, and the other figures for the tooltip."""
    binding = scenario.get("binding") or {"by": "target"}
    steps = [st["users"] for st in scenario["steps"]]
    crossing = crossing_text(counter, stat, threshold)
    own = scenario["saturation_text"].replace(" users", "").replace(" (not reached)", "")
    others = [f"{crossing}: {own} users"]
    for row in scenario.get("limits", []):
        line = f"{limit_text(row)}: {row['text']}"
        if row["counter"] != binding.get("counter") and line not in others:
            others.append(line)
    if binding["by"] == "limit":
        below = binding["bound"] == "below_first_step"
        return {
            "users": binding["users"],
            "bound": binding["bound"],
            "text": f"< {_number(binding['users'])}" if below else _number(binding["users"]),
            "interval": binding.get("interval"),
            "shown": binding["users"],
            "decided_by": limit_text(binding),
            "limit": True,
            "counter_users": scenario["saturation_users"],
            "others": others,
        }
    return {
        "users": scenario["saturation_users"],
        "bound": scenario["bound"],
        # "~1,031": the dashed bar says extrapolated; the tooltip and the table say beyond what.
        "text": own.split(" (")[0],
        "interval": scenario["interval"],
        # "> N": draw the bar at the last step measured, marked as not reached.
        "shown": scenario["saturation_users"] or max(steps, default=None),
        "decided_by": crossing,
        "limit": False,
        "counter_users": scenario["saturation_users"],
        "others": others[1:],
    }

"""The sentences a stakeholder reads first: short scenario names and one headline per scenario.

Scenarios are named by the dimensions that differ between them only
(``SMB 3.02 · SSD · AV on-access off``), never the whole ``key=value`` list.
A headline states the capacity answer with its unit and the resource that
limits it: "SMB 3.02 on SSD with AV on-access off carries 860 users before
CPU reaches 80 %", or, when another resource gives out first, "... carries
640 users before disk latency reaches 20 ms (CPU: 820 users)".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from webapp.analysis.capacity import DEFAULT_COUNTER
from webapp.analysis.limits import limit_text

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


def headline(
    scenario: Mapping[str, Any], keys: Sequence[str], counter: str, stat: str, threshold: float
) -> str:
    """One sentence with the scenario's answer (see the module docstring)."""
    subject = phrase(scenario["dims"], keys)
    crossing = crossing_text(counter, stat, threshold)
    users, bound = scenario.get("saturation_users"), scenario.get("bound")
    steps = [s["users"] for s in scenario.get("steps", [])]
    limiting = scenario.get("limiting")
    if limiting and limiting.get("users") is not None and (users is None or limiting["users"] < users - 0.5):
        row = next((r for r in scenario.get("limits", []) if r["counter"] == limiting["counter"]), limiting)
        own = f" ({counter_name(counter)}: {_number(users)} users)" if users is not None else ""
        return f"{subject} carries {_number(limiting['users'])} users before {limit_text(row)}{own}."
    if bound == "interpolated" and users is not None:
        return f"{subject} carries {_number(users)} users before {crossing}."
    if bound == "extrapolated" and users is not None:
        return (
            f"{subject} carries about {_number(users)} users before {crossing} "
            f"(extrapolated beyond the {_number(max(steps))} tested)."
        )
    if bound == "not_reached" and steps:
        return f"{subject} carries more than {_number(max(steps))} users, the most tested, before {crossing}."
    if bound == "below_first_step" and steps:
        return f"{subject} is past {threshold_text(counter, threshold)} {counter_name(counter)} already at {_number(min(steps))} users, the fewest tested."
    return f"{subject}: no load steps with samples of {counter_name(counter)}."


def crossing_text(counter: str, stat: str, threshold: float) -> str:
    """ "CPU reaches 80 %", "maximum CPU reaches 60 %"."""
    return f"{_STATS.get(stat, '')}{counter_name(counter)} reaches {threshold_text(counter, threshold)}"


def decider(binding: Mapping[str, Any] | None, crossing: str) -> str:
    """What decides the users per server: "the disk queue reaches 10", or the counter's own crossing."""
    if binding and binding.get("by") == "limit":
        return limit_text(binding)
    return crossing


def sizing_sentence(
    row: Mapping[str, Any], keys: Sequence[str], users: int, redundancy: int, crossing: str = ""
) -> str:
    """ "7 servers (N+1) for 3,000 users with HDD, AV off: 522 users per server before the disk queue
    reaches 10 (CPU reaches 60 % only at 678 users per server, which alone would mean 6 servers)."."""
    name = short_label(row["dims"], _own_keys(row["dims"], keys)).replace(" · ", ", ")
    binding = row.get("binding")
    if row.get("servers") is None:
        reason = f" ({decider(binding, crossing)} already at the fewest users tested)" if binding else ""
        return f"Servers for {users:,} users with {name}: unknown (users per server not measured{reason})."
    plural = "server" if row["servers"] == 1 else "servers"
    text = f"{row['servers']} {plural} (N+{redundancy}) for {users:,} users with {name}"
    if not binding or not crossing:
        return text + "."
    text += f": {_number(row['users_per_server'])} users per server before {decider(binding, crossing)}"
    if binding.get("by") == "limit" and row.get("counter_users_per_server"):
        alone = row["counter_servers"]
        text += (
            f" ({crossing} only at {_number(row['counter_users_per_server'])} users per server, which alone"
            f" would mean {alone} {'server' if alone == 1 else 'servers'})"
        )
    return text + "."


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

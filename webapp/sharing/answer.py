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
    crossing = f"{_STATS.get(stat, '')}{counter_name(counter)} reaches {threshold_text(counter, threshold)}"
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


def sizing_sentence(row: Mapping[str, Any], keys: Sequence[str], users: int, redundancy: int) -> str:
    """ "4 servers (N+1) for 3,000 users with SSD, AV on-access off" from a sizing row."""
    name = short_label(row["dims"], _own_keys(row["dims"], keys)).replace(" · ", ", ")
    if row.get("servers") is None:
        return f"Servers for {users:,} users with {name}: unknown (users per server not measured)."
    plural = "server" if row["servers"] == 1 else "servers"
    return f"{row['servers']} {plural} (N+{redundancy}) for {users:,} users with {name}."

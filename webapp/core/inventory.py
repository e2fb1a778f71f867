"""What a machine is: the inventory an agent reports (or a person corrects), kept on its Host.

``Host.attributes`` holds it under ``inventory`` (OS, CPU, processors, memory,
disks, network adapters, and ``source``: ``agent`` or ``edited``), and two
figures the limits read (``webapp.analysis.limits``): ``memory_mb`` (memory %
of installed) and each adapter's link speed (network % of link speed when no
``Current Bandwidth`` series was recorded). An edited inventory stands: a
later agent report is kept beside it as ``inventory_reported``, so a correction
is not undone by the next upload session. ``docs/inputs.md`` documents the fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

# perfmon cannot hold these in an instance name and writes the replacement instead.
_PERFMON_INSTANCE = str.maketrans({"(": "[", ")": "]", "#": "_", "/": "_", "\\": "_"})
FIELDS = ("os", "os_version", "cpu_model", "sockets", "cores", "logical_processors", "memory_mb")


def perfmon_instance(name: str) -> str:
    """An adapter or disk name as perfmon spells it in a counter path (``Intel(R)`` -> ``Intel[R]``)."""
    return name.translate(_PERFMON_INSTANCE)


def apply_inventory(
    attributes: Mapping[str, Any] | None, found: Mapping[str, Any], *, edited: bool
) -> dict[str, Any]:
    """The host's attributes with ``found`` (an already checked inventory) recorded.

    Returns the new attributes and never changes ``attributes``. An agent's
    report (``edited`` false) over an edited inventory is only kept beside it.
    """
    result = dict(attributes or {})
    stamped = {**found, "source": "edited" if edited else "agent", "updated_at": _now()}
    current = result.get("inventory")
    if not edited and isinstance(current, dict) and current.get("source") == "edited":
        result["inventory_reported"] = stamped
        return result
    result["inventory"] = stamped
    if edited:
        result.pop("inventory_reported", None)
    memory = found.get("memory_mb")
    if isinstance(memory, int | float) and memory > 0:
        result["memory_mb"] = round(memory)
    return result


def kept_edited(attributes: Mapping[str, Any] | None) -> bool:
    """Is the host's inventory a person's correction (an agent report was set aside)?"""
    current = (attributes or {}).get("inventory")
    return isinstance(current, dict) and current.get("source") == "edited"


def os_text(found: Mapping[str, Any]) -> str:
    """``Host.os``: name and version, at most 128 characters."""
    return " ".join(str(found.get(k) or "").strip() for k in ("os", "os_version")).strip()[:128]


def link_speeds(attributes: Mapping[str, Any] | None) -> dict[str, float]:
    """Adapter -> link speed in bits/s, by the name the agent samples it under and by its perfmon name."""
    inventory = (attributes or {}).get("inventory")
    if not isinstance(inventory, dict):
        return {}
    speeds: dict[str, float] = {}
    for nic in inventory.get("nics") or ():
        speed = nic.get("speed_bps") if isinstance(nic, dict) else None
        if not isinstance(speed, int | float) or speed <= 0:
            continue
        for key in ("description", "name"):  # the name wins when a description repeats it
            if nic.get(key):
                speeds[perfmon_instance(str(nic[key]))] = float(speed)
    return speeds


def _gigabytes(megabytes: float) -> str:
    value = megabytes / 1024.0
    return f"{value:.0f} GB" if value >= 10 or abs(value - round(value)) < 0.05 else f"{value:.1f} GB"


def summary(attributes: Mapping[str, Any] | None) -> str:
    """``"2 vCPU, 4 GB"``: logical processors and memory; ``""`` when nothing is known."""
    attributes = attributes or {}
    found = attributes.get("inventory")
    inventory: Mapping[str, Any] = found if isinstance(found, dict) else {}
    parts = []
    cpus = inventory.get("logical_processors") or inventory.get("cores")
    if isinstance(cpus, int) and cpus > 0:
        parts.append(f"{cpus} vCPU")
    memory = attributes.get("memory_mb")
    if isinstance(memory, int | float) and memory > 0:
        parts.append(_gigabytes(float(memory)))
    return ", ".join(parts)


def description(attributes: Mapping[str, Any] | None) -> str:
    """The whole inventory in one line (OS, CPU, disks, adapters) for a tooltip or a report."""
    inventory = (attributes or {}).get("inventory")
    if not isinstance(inventory, dict):
        return ""
    parts = [os_text(inventory)]
    cpu = str(inventory.get("cpu_model") or "")
    counts = [
        f"{inventory[k]} {label}"
        for k, label in (("sockets", "socket(s)"), ("cores", "cores"), ("logical_processors", "logical"))
        if inventory.get(k)
    ]
    if cpu or counts:
        parts.append(f"{cpu} ({', '.join(counts)})" if counts else cpu)
    for disk in inventory.get("disks") or ():
        size = disk.get("size_bytes")
        shown = f"{size / 1e9:,.0f} GB" if isinstance(size, int | float) and size else ""
        parts.append(
            " ".join(str(x) for x in (disk.get("name"), disk.get("model"), shown, disk.get("media")) if x)
        )
    for nic in inventory.get("nics") or ():
        speed = nic.get("speed_bps")
        shown = f"{speed / 1e9:g} Gbit/s" if isinstance(speed, int | float) and speed else "speed unknown"
        parts.append(f"{nic.get('name')} {shown}")
    if inventory.get("source") == "edited":
        parts.append("(edited)")
    return "; ".join(p for p in parts if p)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")

"""What a Windows machine is, from CIM (WMI) through PowerShell: one query, JSON back.

``SCRIPT`` asks ``Get-CimInstance`` for the operating system, computer
system, processors, memory modules, physical disks (``MSFT_PhysicalDisk``,
Windows 8/2012 and later) and network adapters, and prints them as one JSON
object; ``parse`` turns that into the inventory. ``ConvertTo-Json`` writes a
class with one instance as an object and several as a list: both are read.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Mapping
from typing import Any

from headroom_agent.instances import perfmon_instance

SCRIPT = (
    "$ErrorActionPreference='SilentlyContinue';"
    "[ordered]@{"
    "os=Get-CimInstance Win32_OperatingSystem|Select-Object Caption,Version;"
    "system=Get-CimInstance Win32_ComputerSystem|Select-Object NumberOfProcessors,NumberOfLogicalProcessors,"
    "TotalPhysicalMemory;"
    "processors=@(Get-CimInstance Win32_Processor|Select-Object Name,NumberOfCores,NumberOfLogicalProcessors);"
    "memory=@(Get-CimInstance Win32_PhysicalMemory|Select-Object Capacity);"
    "disks=@(Get-CimInstance -Namespace root/Microsoft/Windows/Storage MSFT_PhysicalDisk|"
    "Select-Object DeviceId,FriendlyName,Size,MediaType,BusType);"
    "nics=@(Get-CimInstance Win32_NetworkAdapter -Filter 'NetEnabled=True'|Select-Object NetConnectionID,Name,Speed)"
    "}|ConvertTo-Json -Depth 4 -Compress"
)
# MSFT_PhysicalDisk.MediaType and BusType codes (Storage Management API).
MEDIA = {3: "HDD", 4: "SSD", 5: "SCM"}
BUS_NVME = 17
# Win32_NetworkAdapter.Speed of a disconnected adapter is the largest int64: no link.
MAX_LINK = 1e13
MIB = 1024 * 1024


class InventoryFailed(Exception):
    """PowerShell is missing or did not answer with the JSON asked for."""


def _list(value: Any) -> list[Mapping[str, Any]]:
    if isinstance(value, Mapping):
        return [value]
    return [v for v in value if isinstance(v, Mapping)] if isinstance(value, list) else []


def _number(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if number == number else None


def _count(value: Any) -> int | None:
    number = _number(value)
    return int(number) if number is not None and number > 0 else None


def parse(text: str) -> dict[str, Any]:
    """The inventory from ``SCRIPT``'s JSON."""
    try:
        data = json.loads(text.lstrip("\ufeff"))
    except ValueError as exc:
        raise InventoryFailed(f"PowerShell's answer is not JSON: {exc}") from None
    if not isinstance(data, Mapping):
        raise InventoryFailed("PowerShell's answer is not a JSON object")
    os_info = (_list(data.get("os")) or [{}])[0]
    system = (_list(data.get("system")) or [{}])[0]
    processors = _list(data.get("processors"))
    modules = [_number(m.get("Capacity")) for m in _list(data.get("memory"))]
    installed = sum(m for m in modules if m)
    total = installed or _number(system.get("TotalPhysicalMemory")) or 0
    cores = sum(_count(p.get("NumberOfCores")) or 0 for p in processors)
    found: dict[str, Any] = {
        "os": str(os_info.get("Caption") or "Windows").strip(),
        "os_version": str(os_info.get("Version") or "").strip(),
        "cpu_model": " ".join(str(processors[0].get("Name") or "").split()) if processors else "",
        "sockets": _count(system.get("NumberOfProcessors")) or (len(processors) or None),
        "cores": cores or None,
        "logical_processors": _count(system.get("NumberOfLogicalProcessors")),
        "memory_mb": round(total / MIB) if total else None,
        "disks": [],
        "nics": [],
    }
    for disk in _list(data.get("disks")):
        media = MEDIA.get(_count(disk.get("MediaType")) or 0, "")
        if _count(disk.get("BusType")) == BUS_NVME:
            media = "NVMe"
        size = _number(disk.get("Size"))
        found["disks"].append(
            {
                # psutil names Windows disks PhysicalDriveN: the sampler's instance names.
                "name": f"PhysicalDrive{disk.get('DeviceId')}",
                "model": str(disk.get("FriendlyName") or "").strip(),
                "size_bytes": int(size) if size else None,
                "media": media,
            }
        )
    for nic in _list(data.get("nics")):
        name = str(nic.get("NetConnectionID") or nic.get("Name") or "").strip()
        if not name:
            continue
        speed = _number(nic.get("Speed"))
        found["nics"].append(
            {
                "name": perfmon_instance(name),
                "description": perfmon_instance(str(nic.get("Name") or "").strip()),
                "speed_bps": speed if speed and 0 < speed < MAX_LINK else None,
            }
        )
    return found


def collect(timeout: float = 60.0) -> dict[str, Any]:
    """Run ``SCRIPT`` in PowerShell (Windows PowerShell or pwsh, whichever is on PATH) and parse it."""
    exe = shutil.which("powershell") or shutil.which("pwsh")
    if exe is None:
        raise InventoryFailed("neither powershell nor pwsh is on PATH")
    try:
        done = subprocess.run(
            [exe, "-NoProfile", "-NonInteractive", "-Command", SCRIPT],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InventoryFailed(f"PowerShell failed: {exc}") from None
    if done.returncode != 0:
        raise InventoryFailed(f"PowerShell exited with {done.returncode}: {done.stderr.strip()[:300]}")
    return parse(done.stdout)

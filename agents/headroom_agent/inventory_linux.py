"""What a Linux machine is, from /proc, /sys and /etc/os-release (no psutil needed).

Every reader takes the file system root, so tests read captured files laid
out under a temporary directory exactly as a machine has them.
"""

from __future__ import annotations

import platform
from pathlib import Path
from typing import Any

# Block devices that are not disks a file server serves from.
SKIPPED_BLOCK = ("loop", "ram", "zram", "sr", "fd", "nbd")
SECTOR = 512  # /sys/block/*/size counts 512-byte sectors whatever the disk's own sector size


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""


def parse_cpuinfo(text: str) -> dict[str, Any]:
    """CPU model, sockets (distinct ``physical id``), cores (distinct physical/core id pairs), logical processors."""
    blocks = [b for b in text.split("\n\n") if b.strip()]
    model = ""
    logical = 0
    sockets: set[str] = set()
    cores: set[tuple[str, str]] = set()
    for block in blocks:
        fields: dict[str, str] = {}
        for line in block.splitlines():
            key, sep, value = line.partition(":")
            if sep:
                fields[key.strip()] = value.strip()
        if "processor" not in fields:
            model = model or fields.get("Hardware", "")  # ARM puts the board in a trailing block
            continue
        logical += 1
        model = model or fields.get("model name") or fields.get("Processor") or fields.get("cpu model", "")
        if "physical id" in fields:
            sockets.add(fields["physical id"])
            if "core id" in fields:
                cores.add((fields["physical id"], fields["core id"]))
    return {
        "cpu_model": " ".join(model.split()),
        "sockets": len(sockets) or None,
        "cores": len(cores) or None,
        "logical_processors": logical or None,
    }


def parse_meminfo(text: str) -> int | None:
    """``MemTotal`` in MiB (what the kernel manages: a little under what is installed)."""
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "MemTotal":
            parts = value.split()
            if parts and parts[0].isdigit():
                return round(int(parts[0]) / 1024)
    return None


def parse_os_release(text: str) -> tuple[str, str]:
    """``(NAME, VERSION_ID or VERSION)`` from /etc/os-release."""
    fields = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            fields[key.strip()] = value.strip().strip('"').strip("'")
    return fields.get("NAME", ""), fields.get("VERSION_ID") or fields.get("VERSION", "")


def disks(root: Path) -> list[dict[str, Any]]:
    """Whole disks under /sys/block: name (as psutil and sysstat name them), model, size, media."""
    found = []
    base = root / "sys" / "block"
    names = sorted(p.name for p in base.iterdir()) if base.is_dir() else []
    for name in names:
        if name.startswith(SKIPPED_BLOCK):
            continue
        device = base / name
        sectors = _read(device / "size")
        rotational = _read(device / "queue" / "rotational")
        media = "NVMe" if name.startswith("nvme") else {"1": "HDD", "0": "SSD"}.get(rotational, "")
        found.append(
            {
                "name": name,
                "model": " ".join(_read(device / "device" / "model").split()),
                "size_bytes": int(sectors) * SECTOR if sectors.isdigit() else None,
                "media": media,
            }
        )
    return found


def nics(root: Path) -> list[dict[str, Any]]:
    """Network interfaces but loopback: name and link speed (``speed`` is Mb/s; -1 or unreadable: unknown)."""
    found = []
    base = root / "sys" / "class" / "net"
    names = sorted(p.name for p in base.iterdir()) if base.is_dir() else []
    for name in names:
        if name == "lo":
            continue
        speed = _read(base / name / "speed")
        megabits = int(speed) if speed.lstrip("-").isdigit() else -1
        found.append({"name": name, "speed_bps": megabits * 1e6 if megabits > 0 else None})
    return found


def collect(root: Path = Path("/")) -> dict[str, Any]:
    """The inventory of the Linux machine whose files are under ``root``."""
    name, version = parse_os_release(_read(root / "etc" / "os-release"))
    found: dict[str, Any] = {
        "os": name or "Linux",
        "os_version": version or platform.release(),
        **parse_cpuinfo(_read(root / "proc" / "cpuinfo")),
        "memory_mb": parse_meminfo(_read(root / "proc" / "meminfo")),
        "disks": disks(root),
        "nics": nics(root),
    }
    return found

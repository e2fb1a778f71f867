"""The machine's inventory, sent once per upload or sampling session to
``PUT /api/v1/hosts/{host}/inventory``.

Linux reads /proc, /sys and /etc/os-release (``inventory_linux``); Windows asks
CIM through PowerShell (``inventory_windows``). The request goes through the
spool like every other, ahead of the session's data, so the server knows the
machine's memory and link speeds when it evaluates the limits. Gathering
that fails (no PowerShell, an unreadable /proc) is said once and sends nothing:
it never stops an upload.
"""

from __future__ import annotations

import json
import sys
import urllib.parse
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TextIO

from headroom_agent import inventory_linux, inventory_windows
from headroom_agent.config import Settings
from headroom_agent.spool import Envelope, Item, Spool


def collect() -> dict[str, Any]:
    """This machine's inventory (``InventoryFailed`` on Windows when PowerShell does not answer)."""
    if sys.platform == "win32":
        return inventory_windows.collect()
    if sys.platform.startswith("linux"):
        return inventory_linux.collect(Path("/"))
    import platform

    return {"os": platform.system(), "os_version": platform.release(), "disks": [], "nics": []}


def request_body(settings: Settings, found: dict[str, Any]) -> bytes:
    """The PUT body: the campaign naming the host's project, its role, then the inventory."""
    body = {"campaign": settings.require_campaign(), "role": settings.role, **found}
    return json.dumps(body, separators=(",", ":")).encode("utf-8")


def spool_inventory(spool: Spool, settings: Settings, err: TextIO) -> Item | None:
    """Gather and spool the inventory of ``settings.host``; None (with a note on ``err``) if it failed."""
    try:
        found = collect()
    except (inventory_windows.InventoryFailed, OSError) as exc:
        print(f"machine inventory not sent: {exc}", file=err)
        return None
    envelope = Envelope(
        kind="inventory",
        method="PUT",
        path=f"/api/v1/hosts/{urllib.parse.quote(settings.host, safe='')}/inventory",
        headers={"Content-Type": "application/json"},
        label=f"inventory of {settings.host}",
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    )
    return spool.add_bytes(envelope, request_body(settings, found))

"""Correcting what a machine is: the inventory form of one host of a campaign (owners and editors).

An agent reports the inventory (``/api/v1/hosts/{name}/inventory``); when it is
wrong or missing -- a VM that reports the host's memory, a NIC without a
speed -- a person fixes it here. The figures are checked by the API's own
schema and stored by the same write (``core.host_inventory``), as an edit that
later agent reports do not undo. Memory is entered in GB and link speeds in
Gbit/s, as people state them; they are stored in MiB and bits/s.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from pydantic import ValidationError

from webapp.accounts.roles import role_in
from webapp.analysis.listings import campaign_machines
from webapp.api.hosts import InventoryIn
from webapp.core import host_inventory
from webapp.core.models import Membership
from webapp.dashboard.views.access import campaign_context, visible_campaign

TEXT_FIELDS = (("os", "Operating system"), ("os_version", "Version"), ("cpu_model", "CPU model"))
COUNT_FIELDS = (("sockets", "Sockets"), ("cores", "Cores"), ("logical_processors", "Logical processors"))
NEW_ADAPTERS = 1  # blank adapter rows under the recorded ones


def _number(text: str, label: str, whole: bool) -> float | int | None:
    text = text.strip().replace(",", "")
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{label}: a number, not {text[:40]!r}") from None
    if whole:
        if value != int(value):
            raise ValueError(f"{label}: a whole number, not {text[:40]!r}")
        return int(value)
    return value


def _form_values(inventory: dict[str, Any]) -> dict[str, Any]:
    """What the form shows for a recorded inventory (GB and Gbit/s)."""
    memory = inventory.get("memory_mb")
    nics = [n for n in inventory.get("nics") or () if isinstance(n, dict)]
    return {
        **{key: inventory.get(key) or "" for key, _ in TEXT_FIELDS + COUNT_FIELDS},
        "memory_gb": f"{memory / 1024:g}" if isinstance(memory, int | float) and memory else "",
        "nics": [
            {
                "name": n.get("name") or "",
                "description": n.get("description") or "",
                "speed_gbps": f"{n['speed_bps'] / 1e9:g}"
                if isinstance(n.get("speed_bps"), int | float)
                else "",
            }
            for n in nics
        ]
        + [{"name": "", "description": "", "speed_gbps": ""}] * NEW_ADAPTERS,
    }


def _typed(request: HttpRequest) -> dict[str, Any]:
    """The form's values as typed (shown again when they cannot be saved)."""
    post = request.POST
    typed: dict[str, Any] = {key: post.get(key, "").strip() for key, _ in TEXT_FIELDS + COUNT_FIELDS}
    typed["memory_gb"] = post.get("memory_gb", "").strip()
    rows_text = post.get("nic_rows", "0")
    rows = int(rows_text) if rows_text.isdigit() else 0
    typed["nics"] = [
        {
            "name": post.get(f"nic-{i}-name", "").strip(),
            "description": post.get(f"nic-{i}-description", "").strip(),
            "speed_gbps": post.get(f"nic-{i}-speed_gbps", "").strip(),
        }
        for i in range(min(rows, 256))
    ]
    return typed


def _inventory(typed: dict[str, Any], disks: list[Any]) -> dict[str, Any]:
    """The inventory the typed values give (GB and Gbit/s converted); ValueError names what is not a number."""
    found: dict[str, Any] = {key: typed[key] for key, _ in TEXT_FIELDS}
    errors = []
    for key, label in COUNT_FIELDS:
        try:
            found[key] = _number(typed[key], label, whole=True)
        except ValueError as exc:
            errors.append(str(exc))
    try:
        memory = _number(typed["memory_gb"], "Memory (GB)", whole=False)
        found["memory_mb"] = round(memory * 1024) if memory is not None else None
    except ValueError as exc:
        errors.append(str(exc))
    found["nics"] = []
    for row in typed["nics"]:
        if not row["name"]:
            if row["speed_gbps"] or row["description"]:
                errors.append("Adapters: a row with a speed or model needs the adapter's name")
            continue
        try:
            speed = _number(row["speed_gbps"], f"Link speed of {row['name'][:40]}", whole=False)
        except ValueError as exc:
            errors.append(str(exc))
            continue
        found["nics"].append(
            {
                "name": row["name"],
                "description": row["description"],
                "speed_bps": speed * 1e9 if speed else None,
            }
        )
    found["disks"] = disks
    if errors:
        raise ValueError("; ".join(errors))
    return found


@login_required
def edit_machine(request: HttpRequest, slug: str, host_id: int) -> HttpResponse:
    campaign = visible_campaign(request, slug)
    host = campaign_machines(campaign).filter(pk=host_id).first()
    if host is None:
        raise Http404("machine not found in this campaign")
    if role_in(request.user, campaign.project) not in (Membership.Role.OWNER, Membership.Role.EDITOR):
        raise Http404("machine not found in this campaign")
    current = dict((host.attributes or {}).get("inventory") or {})
    current.setdefault("memory_mb", (host.attributes or {}).get("memory_mb"))
    disks = [d for d in current.get("disks") or () if isinstance(d, dict)]
    values, error, status = _form_values(current), "", 200
    if request.method == "POST":
        values = _typed(request)
        try:
            found = _inventory(values, disks)
            checked = InventoryIn.model_validate({**found, "campaign": campaign.slug})
        except ValueError as exc:  # pydantic's ValidationError is a ValueError too
            error, status = _message(exc), 400
        else:
            stored = host_inventory.record(
                host.pk, checked.model_dump(exclude={"campaign", "role", "edited"}), edited=True
            )
            messages.success(
                request,
                f"{host.name}: inventory saved ({stored.summary or 'no processors or memory given'}). "
                "Later agent reports are kept beside it, not over it.",
            )
            return redirect("dashboard:campaign", slug=campaign.slug)
    context = campaign_context(
        campaign,
        "campaign",
        host=host,
        values=values,
        error=error,
        disks=disks,
        text_fields=[(key, label, values.get(key, "")) for key, label in TEXT_FIELDS],
        count_fields=[(key, label, values.get(key, "")) for key, label in COUNT_FIELDS],
        source=current.get("source", ""),
    )
    return render(request, "dashboard/machine.html", context, status=status)


LABELS = {
    **dict(TEXT_FIELDS + COUNT_FIELDS),
    "memory_mb": "Memory (GB; stored in MiB)",
    "nics": "Adapters",
    "speed_bps": "link speed (stored in bits/s)",
    "description": "model",
    "name": "name",
}


def _message(exc: ValueError) -> str:
    """A form-level message naming the field in the form's words."""
    if not isinstance(exc, ValidationError):
        return str(exc)
    parts = []
    for problem in exc.errors():
        where = " ".join(
            f"row {p + 1}" if isinstance(p, int) else LABELS.get(str(p), str(p)) for p in problem["loc"]
        )
        parts.append(f"{where}: {problem['msg'].lower()}")
    return "; ".join(parts)

"""``/api/v1/hosts/{name}/inventory``: what a machine is (OS, CPU, memory, disks, adapters).

``headroom-agent`` PUTs it once per upload or sampling session; a person
corrects it with the same PUT from a dashboard session (or in the admin).
Hosts belong to a project, so the body (PUT) or the query (GET) names one
of its campaigns. Sizes are bounded and every field checked: a bad one is a
400 naming it. The rules on storing are ``webapp.core.inventory``'s.
"""

from __future__ import annotations

from typing import Any, Literal

from django.db import transaction
from django.http import HttpRequest
from ninja import Field, Router, Schema
from pydantic import ConfigDict, field_validator

from webapp.api.auth import any_auth, caller
from webapp.api.errors import not_found
from webapp.api.schemas import ErrorOut
from webapp.api.uploads import campaign_for
from webapp.core import host_inventory, inventory
from webapp.core.models import Campaign, Host

router = Router(tags=["hosts"])

# A big server has a few dozen disks and adapters; past these a body is not an inventory.
MAX_DISKS = 256
MAX_NICS = 256
TEXT = 255


class _Checked(Schema):
    model_config = ConfigDict(extra="forbid")

    @field_validator("*", mode="before")
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        if isinstance(value, str) and "\x00" in value:
            raise ValueError("text must not contain NUL characters")
        return value


class DiskIn(_Checked):
    name: str = Field(min_length=1, max_length=TEXT)
    model: str = Field("", max_length=TEXT)
    size_bytes: int | None = Field(None, ge=0, le=2**60)
    media: str = Field("", max_length=32, description="HDD, SSD, NVMe, ... when known")


class NicIn(_Checked):
    name: str = Field(min_length=1, max_length=TEXT, description="as the agent samples it (perfmon instance)")
    description: str = Field("", max_length=TEXT, description="the adapter's model (Windows' instance name)")
    speed_bps: float | None = Field(None, ge=0, le=1e13, description="link speed, bits/s")


class InventoryIn(_Checked):
    campaign: str = Field(max_length=64, description="a campaign of the host's project")
    role: Literal["client", "server"] | None = Field(None, description="for a host not seen before")
    edited: bool | None = Field(None, description="a correction that later agent reports do not undo")
    os: str = Field("", max_length=128)
    os_version: str = Field("", max_length=128)
    cpu_model: str = Field("", max_length=TEXT)
    sockets: int | None = Field(None, ge=1, le=1024)
    cores: int | None = Field(None, ge=1, le=1_000_000)
    logical_processors: int | None = Field(None, ge=1, le=1_000_000)
    memory_mb: int | None = Field(None, ge=1, le=2**40, description="installed memory, MiB")
    disks: list[DiskIn] = Field([], max_length=MAX_DISKS)
    nics: list[NicIn] = Field([], max_length=MAX_NICS)


class InventoryOut(Schema):
    host: str
    role: str
    os: str
    summary: str
    description: str
    inventory: dict[str, Any] | None
    reported: dict[str, Any] | None = Field(None, description="an agent report set aside by an edit")
    kept_edited: bool


def inventory_out(host: Host) -> dict[str, Any]:
    attributes = host.attributes or {}
    return {
        "host": host.name,
        "role": host.role,
        "os": host.os,
        "summary": host.summary,
        "description": host.description,
        "inventory": attributes.get("inventory"),
        "reported": attributes.get("inventory_reported"),
        "kept_edited": inventory.kept_edited(attributes),
    }


def _host(campaign: Campaign, name: str) -> Host | None:
    return Host.objects.filter(project_id=campaign.project_id, name__iexact=name).order_by("pk").first()


@router.put(
    "/hosts/{name}/inventory",
    auth=any_auth,
    response={200: InventoryOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut},
)
def put_inventory(request: HttpRequest, name: str, payload: InventoryIn) -> dict[str, Any]:
    """Record what the machine ``name`` is (made when new). Agents report; a signed-in owner or editor
    corrects (``edited`` defaults to true for a dashboard session, false for an agent token)."""
    campaign = campaign_for(request, payload.campaign, write=True)
    name = name.strip()
    if not name or len(name) > TEXT or "\x00" in name:
        raise not_found(f"host {name[:64]!r}")
    edited = payload.edited if payload.edited is not None else caller(request).token is None
    found = payload.model_dump(exclude={"campaign", "role", "edited"})
    with transaction.atomic():
        host = _host(campaign, name)
        if host is None:
            host, _ = Host.objects.get_or_create(
                project_id=campaign.project_id, name=name, defaults={"role": payload.role or Host.Role.CLIENT}
            )
        host = host_inventory.record(host.pk, found, edited=edited)
    return inventory_out(host)


@router.get("/hosts/{name}/inventory", auth=any_auth, response={200: InventoryOut, 404: ErrorOut})
def get_inventory(request: HttpRequest, name: str, campaign: str) -> dict[str, Any]:
    """The machine's recorded inventory and its summary (``"2 vCPU, 4 GB"``)."""
    host = _host(campaign_for(request, campaign), name.strip()[:TEXT].replace("\x00", ""))
    if host is None:
        raise not_found(f"host {name[:64]!r}")
    return inventory_out(host)

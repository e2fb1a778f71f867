"""``{% send_hint %}``: on a campaign page with nothing to show yet, what to send and how.

A new campaign's pages are empty; each says which results fill it and the
agent command that sends them, with this server's URL. The check per view is
one cheap ``EXISTS`` query; pages with data show nothing.
"""

from __future__ import annotations

from typing import Any

from django import template

from webapp.core.models import Campaign, RunStep, Upload
from webapp.timeseries.models import Measurement

register = template.Library()

PARSERS = {
    "traces": ("perfmon_csv", "samples", "sysstat"),
    "blocksize": ("diskspd_xml", "diskspd_text", "fio_json"),
    "copies": ("robocopy",),
}


def is_empty(campaign: Campaign, section: str) -> bool:
    """True when the view ``section`` of ``campaign`` has nothing to show yet."""
    if section in ("campaign", "uploads"):
        return not Upload.objects.filter(campaign=campaign).exists()
    if section == "capacity":
        return not RunStep.objects.filter(run__campaign=campaign).exists()
    if section == "compare":
        return not Measurement.objects.filter(run__campaign=campaign).exists()
    if section in PARSERS:
        return not Upload.objects.filter(
            campaign=campaign, status=Upload.Status.STORED, parser__in=PARSERS[section]
        ).exists()
    return False


@register.inclusion_tag("dashboard/_send_hint.html", takes_context=True)
def send_hint(context: dict[str, Any]) -> dict[str, Any]:
    campaign = context.get("campaign")
    section = str(context.get("section") or "")
    request = context.get("request")
    if not isinstance(campaign, Campaign) or request is None or section == "uploads":
        return {"show": False}
    return {
        "show": is_empty(campaign, section),
        "section": section,
        "campaign": campaign,
        "server": request.build_absolute_uri("/").rstrip("/"),
    }

"""``{% campaign_notes campaign as notes %}``: the campaign's notes (``webapp.core.notes.note_dict``), oldest first.

A tag rather than a view's context value, so every page that shows notes (the
overview, the capacity page) reads them the same way without its view knowing.
"""

from __future__ import annotations

from typing import Any

from django import template

from webapp.core.models import Campaign
from webapp.core.notes import notes_of

register = template.Library()


@register.simple_tag
def campaign_notes(campaign: Campaign) -> list[dict[str, Any]]:
    return notes_of([campaign])[campaign.pk]


@register.filter
def note_target(note: dict[str, Any]) -> str:
    """ "scenario SMB 3.02 · SSD", "run fsct-2 (SMB 3.02 · SSD)" or "campaign"."""
    if note["target"] == "run":
        return f"run {note['run_name']} ({note['scenario_label']})"
    if note["target"] == "scenario":
        return f"scenario {note['scenario_label']}"
    return "campaign"

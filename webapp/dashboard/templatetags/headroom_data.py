"""``{% expiry_note campaign %}``: the sentence saying which raw samples retention removed."""

from __future__ import annotations

from django import template

from webapp.analysis.expiry import data_note
from webapp.core.models import Campaign

register = template.Library()


@register.simple_tag
def expiry_note(campaign: Campaign) -> str:
    return str(data_note(campaign=campaign)["note"])

"""``{% default_expiry_days %}``: the one expiry both ways of making a share link start from."""

from __future__ import annotations

from django import template

from webapp.sharing.models import DEFAULT_EXPIRY_DAYS

register = template.Library()


@register.simple_tag
def default_expiry_days() -> int:
    return DEFAULT_EXPIRY_DAYS

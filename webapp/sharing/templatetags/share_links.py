"""Template tags of the sharing pages.

``{% default_expiry_days %}``: the one expiry both ways of making a share link start from.
``{{ key|dimension_label }}``: a scenario dimension in words, for readers without the code.
"""

from __future__ import annotations

from django import template

from webapp.core.models.campaigns import dimension_label as label_of
from webapp.sharing.models import DEFAULT_EXPIRY_DAYS

register = template.Library()


@register.simple_tag
def default_expiry_days() -> int:
    return DEFAULT_EXPIRY_DAYS


@register.filter
def dimension_label(key: str) -> str:
    return label_of(str(key))

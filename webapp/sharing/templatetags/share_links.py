"""Template tags of the sharing pages.

``{% default_expiry_days %}``: the one expiry both ways of making a share link start from.
``{{ key|dimension_label }}``: a scenario dimension in words, for readers without the code.
``{% figure at field unit value %}``, ``{% figure mark %}``: the attributes saying where a printed figure is
in the API answer (``data-key`` = ``at`` + ``field``, see webapp/sharing/marks.py); nothing visible.
``{{ parts|marked }}``: a sentence of text and marks, each mark in a ``<span>`` with those attributes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from django import template
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe

from webapp.core.models.campaigns import dimension_label as label_of
from webapp.sharing.marks import Mark, Part
from webapp.sharing.models import DEFAULT_EXPIRY_DAYS

register = template.Library()


@register.simple_tag
def default_expiry_days() -> int:
    return DEFAULT_EXPIRY_DAYS


@register.filter
def dimension_label(key: str) -> str:
    return label_of(str(key))


@register.simple_tag
def figure(at: Mark | str, field: str = "", unit: str = "", value: Any = None) -> SafeString:
    if isinstance(at, Mark):
        return figure(at.key, "", at.unit, at.value)
    if not at:
        return SafeString("")
    return format_html(' data-key="{}" data-unit="{}" data-value="{}"', at + field, unit, json.dumps(value))


@register.filter
def marked(parts: Sequence[Part]) -> SafeString:
    return mark_safe(  # every part is escaped: a mark by format_html, text by conditional_escape
        "".join(
            format_html("<span{}>{}</span>", figure(p), p.text)
            if isinstance(p, Mark)
            else conditional_escape(p)
            for p in parts
        )
    )

"""Template tags for the admin index: the time-series storage mode (used by core's ``admin/headroom_index.html``)."""

from __future__ import annotations

from django import template

from webapp.timeseries import backend

register = template.Library()


@register.simple_tag
def timeseries_mode() -> str:
    """The time-series storage the migrations built: ``timescaledb`` or ``postgresql``."""
    return backend.mode()

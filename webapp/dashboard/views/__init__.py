"""Dashboard pages, one module per resource; every query is scoped to the signed-in user's projects."""

from __future__ import annotations

from webapp.dashboard.views.access import visible_campaign, visible_projects
from webapp.dashboard.views.analysis import blocksize, capacity, compare, copies
from webapp.dashboard.views.campaigns import campaign_settings, new_campaign
from webapp.dashboard.views.machines import edit_machine
from webapp.dashboard.views.pages import campaign, home
from webapp.dashboard.views.series import (
    add_campaign_note,
    delete_campaign_note,
    series_baseline,
    series_history,
)
from webapp.dashboard.views.traces import traces
from webapp.dashboard.views.uploads import delete_upload, reparse_upload, uploads

__all__ = [
    "add_campaign_note",
    "blocksize",
    "campaign",
    "campaign_settings",
    "capacity",
    "compare",
    "copies",
    "delete_campaign_note",
    "delete_upload",
    "edit_machine",
    "home",
    "new_campaign",
    "reparse_upload",
    "series_baseline",
    "series_history",
    "traces",
    "uploads",
    "visible_campaign",
    "visible_projects",
]

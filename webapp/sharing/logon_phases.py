"""The shared "Where the logon time goes": the logon phases answer the compare page draws, with its baseline frozen.

The report embeds ``GET /api/v1/campaigns/{slug}/logon-phases`` as a member gets it
(``webapp/analysis/logon_phases.py``) and draws it with the dashboard's own script
(``frontend/headroom/logon_phases.js``), so both print the same figures. The link keeps the
page's ``phases_baseline``; one that is not a scenario of the campaign with phases falls back to
the API's default (the first scenario with phases).
"""

from __future__ import annotations

from typing import Any

from webapp.analysis.logon_phases import logon_phases
from webapp.api.analysis import _finite
from webapp.core.models import Campaign, Scenario
from webapp.sharing.marks import api_address


def phases_baseline(raw: Any) -> int | None:
    """The frozen baseline: a scenario id, or None for the default (ValueError for anything else)."""
    text = str(raw if raw is not None else "").strip()
    if not text:
        return None
    if not text.isdigit() or len(text) > 18:
        raise ValueError(f"phases_baseline must be a scenario id, not {text[:40]!r}")
    return int(text)


def phases_section(campaign: Campaign, baseline_id: int | None) -> dict[str, Any] | None:
    """The answer to embed and the address it stands for, or None when no scenario has logon phases."""
    baseline = Scenario.objects.filter(campaign=campaign, pk=baseline_id).first() if baseline_id else None
    answer = _finite(logon_phases(campaign, baseline))
    if not answer["has_phases"]:
        return None
    used = answer["baseline"]["scenario"] if answer["baseline"] else None
    return {"answer": answer, "api": api_address("logon-phases", {"baseline": used})}

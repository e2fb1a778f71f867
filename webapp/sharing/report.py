"""What a shared page shows: built from the campaign and the link's frozen filters only."""

from __future__ import annotations

from typing import Any

from webapp.analysis.capacity import campaign_capacity, parse_counter
from webapp.analysis.compare import campaign_compare
from webapp.api.analysis import METHOD
from webapp.core.models import DIMENSIONS, Scenario
from webapp.sharing.models import ShareLink

CAPACITY_DEFAULTS: dict[str, Any] = {"counter": "", "stat": "avg", "threshold": 80.0, "trim": 10.0}


def capacity_filters(raw: dict[str, Any]) -> dict[str, Any]:
    """Validated capacity filters (raises ValueError on nonsense)."""
    filters = {**CAPACITY_DEFAULTS, **{k: v for k, v in raw.items() if k in CAPACITY_DEFAULTS}}
    if filters["stat"] not in ("avg", "max", "p95"):
        raise ValueError("stat must be avg, max or p95")
    filters["threshold"] = float(filters["threshold"])
    filters["trim"] = float(filters["trim"])
    parse_counter(filters["counter"])
    return filters


def build(link: ShareLink) -> dict[str, Any]:
    campaign = link.campaign
    scenarios = list(Scenario.objects.filter(campaign=campaign).order_by("id"))
    keys = [d for d in DIMENSIONS if any(getattr(s, d) for s in scenarios)]
    extras = sorted({k for s in scenarios for k in (s.extras or {})})
    context: dict[str, Any] = {
        "campaign": campaign,
        "link": link,
        "dimension_keys": keys + extras,
        "scenario_rows": [(s.label, [s.dims.get(k, "") for k in keys + extras]) for s in scenarios],
    }
    if link.view in (ShareLink.View.OVERVIEW, ShareLink.View.CAPACITY):
        filters = capacity_filters(link.filters if link.view == ShareLink.View.CAPACITY else {})
        rows = campaign_capacity(
            campaign,
            parse_counter(filters["counter"]),
            filters["stat"],
            filters["threshold"],
            filters["trim"],
        )
        context["capacity"] = {
            "filters": filters,
            "method": METHOD.format(
                trim=filters["trim"], stat=filters["stat"], threshold=filters["threshold"]
            ),
            "scenarios": [r.as_dict() for r in rows],
        }
    if link.view == ShareLink.View.COMPARE:
        baseline = Scenario.objects.filter(campaign=campaign, pk=link.filters.get("baseline")).first()
        if baseline is not None:
            context["compare"] = campaign_compare(campaign, baseline, str(link.filters.get("metric", "")))
    return context

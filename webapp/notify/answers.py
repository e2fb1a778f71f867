"""Which answers of a campaign changed significantly, and the notice that says so.

One recomputation judges the stored campaign and every campaign compared with
it (their baseline's answers moved too): each campaign's significant changes
(``significant`` true, better or worse) against its baseline, from
``webapp.analysis.history`` with the project's capacity method. Their
fingerprint names the changes, not their values, so more runs that only
refine a figure do not notify again.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.conf import settings
from django.urls import reverse

from webapp.analysis.counters import parse_counter
from webapp.analysis.history import series_history
from webapp.api.analysis import _finite
from webapp.core.models import Campaign, Series
from webapp.core.models.campaigns import dims_key
from webapp.notify.models import NotifySettings


def method_of(config: NotifySettings) -> dict[str, Any]:
    return {"counter": parse_counter(config.counter).path, "stat": config.stat, "threshold": config.threshold}


def judged(series: Series, campaign: Campaign, config: NotifySettings) -> dict[str, list[dict[str, Any]]]:
    """Slug -> significant changes, for ``campaign`` and every campaign whose baseline it is."""
    history = series_history(series, parse_counter(config.counter), config.stat, config.threshold)  # type: ignore[arg-type]
    touched = [
        c["slug"]
        for c in history["campaigns"]
        if c["slug"] == campaign.slug or c["compared_with"] == campaign.slug
    ]
    return {
        slug: [c for c in history["changes"] if c["campaign"] == slug and c["significant"] is True]
        for slug in touched
    }


def fingerprint(changes: list[dict[str, Any]]) -> str:
    names = sorted(
        json.dumps(
            [c["baseline"], c["metric"], dims_key(c["dims"]), c["subject"], c["execution"], c["direction"]]
        )
        for c in changes
    )
    return hashlib.sha256("\n".join(names).encode()).hexdigest()


def link(path: str) -> str:
    return settings.PUBLIC_URL + path


def body(
    event: str,
    delivery: str,
    project: str,
    method: dict[str, Any],
    campaign: Campaign | None = None,
    changes: list[dict[str, Any]] | None = None,
) -> str:
    """The JSON text the webhook carries; signed exactly as returned."""
    payload: dict[str, Any] = {"event": event, "delivery": delivery, "project": project, "method": method}
    if campaign is not None and campaign.series is not None:
        changes = changes or []
        payload |= {
            "series": {"slug": campaign.series.slug, "name": campaign.series.name},
            "campaign": {"slug": campaign.slug, "name": campaign.name, "series_key": campaign.series_key},
            "baseline": changes[0]["baseline"] if changes else None,
            "changes": changes,
            "url": link(reverse("dashboard:campaign", args=[campaign.slug])),
        }
    return json.dumps(_finite(payload), sort_keys=True, default=str, allow_nan=False)


def describe(change: dict[str, Any]) -> str:
    """One line of the e-mail: scenario, figure, from -> to, change and direction."""
    what = change["metric_label"] + (f" ({change['subject']})" if change["subject"] else "")
    return (
        f"- {change['label']}: {what}: {change['baseline_value']:,.4g} -> {change['value']:,.4g} {change['unit']} "
        f"({change['change_pct']:+.1f} %, {change['direction'] or 'changed'})"
    )


def mail_text(campaign: Campaign, changes: list[dict[str, Any]]) -> tuple[str, str]:
    """(subject, text) of the e-mail for these changes."""
    assert campaign.series is not None
    baseline = changes[0]["baseline"]
    worse = sum(c["direction"] == "worse" for c in changes)
    subject = (
        f"[Headroom] {campaign.name}: {len(changes)} answer{'s' if len(changes) != 1 else ''} changed "
        f"against {baseline}" + (f", {worse} worse" if worse else "")
    )
    lines = [
        f"Campaign {campaign.name} ({campaign.slug}) of series {campaign.series.name} was recomputed after "
        f"an upload was stored. Against {baseline}, these answers changed significantly:",
        "",
        *(describe(c) for c in changes),
        "",
        link(reverse("dashboard:campaign", args=[campaign.slug])),
        "",
        "You get this because you subscribed to the project's notifications; an owner can change that "
        "on the project's Notifications page.",
    ]
    return subject, "\n".join(lines)

"""What a shared page shows: built from the campaign and the link's frozen filters only.

Every filter of the view the link was made from is frozen (validated with the
API's rules when the link is made and again when it is opened): capacity --
counter, statistic, threshold, trim, the bar grouping and colour dimensions,
the what-if sizing (users, target, redundancy) and the user-experience rule
(timing, ux_baseline, delta_ms or factor: webapp/sharing/ux.py); compare -- baseline,
metric, the metric group shown and the logon phases' baseline (webapp/sharing/logon_phases.py); traces -- run, counter series, start and end
(webapp/sharing/traces.py); series history -- the capacity parameters and the
baseline (webapp/sharing/history.py).

Notes are not frozen: a report shows the notes its campaign has when it is
opened (a wrong note deleted disappears from every link), and only those of
its own campaign (a series history: of the series' campaigns).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from webapp.analysis.capacity import campaign_capacity
from webapp.analysis.compare import campaign_compare
from webapp.analysis.counters import parse_counter
from webapp.analysis.listings import campaign_machines
from webapp.analysis.metric_groups import GROUPS, metric_words
from webapp.analysis.units import value_text
from webapp.api.analysis import METHOD
from webapp.api.errors import ApiError
from webapp.api.sizing import sizing_body
from webapp.core.models import DIMENSIONS, Scenario
from webapp.core.notes import notes_of
from webapp.sharing import answer
from webapp.sharing.copies import copies_section
from webapp.sharing.fsct import fsct_section
from webapp.sharing.history import history_filters, history_section
from webapp.sharing.logon_phases import phases_baseline, phases_section
from webapp.sharing.marks import api_address
from webapp.sharing.models import ShareLink
from webapp.sharing.studies import p_text, study_tables
from webapp.sharing.traces import traces_section
from webapp.sharing.ux import frozen_ux, ux_section

CAPACITY_DEFAULTS: dict[str, Any] = {"counter": "", "stat": "avg", "threshold": 80.0, "trim": 10.0}
CAPACITY_EXTRAS = ("groups", "colour", "users", "target", "redundancy")
COMPARE_KEYS = ("baseline", "metric", "show", "phases_baseline")


def capacity_filters(raw: dict[str, Any]) -> dict[str, Any]:
    """Validated capacity filters (ValueError saying what is wrong).

    The same rules as ``GET /api/v1/campaigns/{slug}/capacity`` and
    ``/sizing`` (webapp/api/): checked when a link is made and again when it
    is opened, so a link frozen with values the API refuses never renders.
    """
    filters = {**CAPACITY_DEFAULTS, **{k: v for k, v in raw.items() if k in CAPACITY_DEFAULTS}}
    if filters["stat"] not in ("avg", "max", "p95"):
        raise ValueError(f"stat must be avg, max or p95, not {filters['stat']!r}")
    try:
        filters["threshold"] = float(filters["threshold"])
        filters["trim"] = float(filters["trim"])
    except (TypeError, ValueError):
        raise ValueError("threshold and trim must be numbers") from None
    if not 0 <= filters["trim"] < 50:
        raise ValueError("trim is a percentage of each step, from 0 to below 50")
    if not math.isfinite(filters["threshold"]):
        raise ValueError("threshold must be a number")
    if not isinstance(filters["counter"], str) or "\x00" in filters["counter"]:
        raise ValueError("counter must be text without NUL characters")
    parse_counter(filters["counter"])
    filters.update(frozen_ux(raw))
    for key in ("groups", "colour"):
        value = raw.get(key, "")
        if not isinstance(value, str) or "\x00" in value or len(value) > 500:
            raise ValueError(f"{key} must be dimension names separated by commas")
        if value:
            filters[key] = value
    if raw.get("users") not in (None, ""):
        try:
            filters["users"] = int(raw["users"])
            filters["target"] = float(raw.get("target") or 60)
            filters["redundancy"] = int(raw.get("redundancy") or 1)
        except (TypeError, ValueError):
            raise ValueError("users and redundancy must be whole numbers, target a number") from None
        try:
            sizing_checked(filters)
        except ApiError as exc:
            raise ValueError(exc.message) from None
    return filters


def sizing_checked(filters: dict[str, Any]) -> None:
    from webapp.api.sizing import checked

    checked(
        filters["counter"],
        filters["stat"],
        filters["trim"],
        filters["target"],
        filters["users"],
        filters["redundancy"],
    )


def compare_filters(raw: dict[str, Any]) -> dict[str, Any]:
    metric, show = str(raw.get("metric", "")), str(raw.get("show", "") or "headline")
    if "\x00" in metric or len(metric) > 1000:
        raise ValueError("the metric must be text without NUL characters")
    if show not in (*GROUPS, "all"):
        raise ValueError(f"show must be one of {', '.join(GROUPS)} or all, not {show[:40]!r}")
    filters = {"baseline": raw.get("baseline"), "metric": metric, "show": show}
    phases = phases_baseline(raw.get("phases_baseline"))
    return {**filters, "phases_baseline": phases} if phases is not None else filters


def _capacity(campaign: Any, filters: dict[str, Any]) -> dict[str, Any]:
    rows = campaign_capacity(
        campaign, parse_counter(filters["counter"]), filters["stat"], filters["threshold"], filters["trim"]
    )
    scenarios = [r.as_dict() for r in rows]
    keys = answer.varying([s["dims"] for s in scenarios])
    counter = parse_counter(filters["counter"]).path
    for i, s in enumerate(scenarios):
        s["at"] = f"/scenarios/{i}"  # where the capacity answer holds it (the figures' data-key)
        s["short"] = answer.short_label(s["dims"], keys)
        s["headline"] = answer.headline_parts(
            s, keys, counter, filters["stat"], filters["threshold"], s["at"]
        )
        s["bar"] = answer.bar(s, counter, filters["stat"], filters["threshold"])
        s["decided"] = answer.decider_parts(
            s["binding"],
            answer.crossing_parts(counter, filters["stat"], filters["threshold"], "/threshold"),
            s["at"],
        )
    colour = filters.get("colour", "")
    section: dict[str, Any] = {
        "filters": filters,
        "counter": counter,
        "counter_name": answer.counter_name(counter),
        "threshold_text": answer.threshold_text(counter, filters["threshold"]),
        "method": METHOD.format(trim=filters["trim"], stat=filters["stat"], threshold=filters["threshold"]),
        "api": api_address("capacity", {k: filters[k] for k in ("counter", "stat", "threshold", "trim")}),
        "scenarios": scenarios,
        "headlines": [s["headline"] for s in scenarios if s["steps"]],
        "chart": {
            "counter": counter,
            "stat": filters["stat"],
            "threshold": filters["threshold"],
            "threshold_text": answer.threshold_text(counter, filters["threshold"]),
            "colour": colour if colour in keys else "",
            "bars": [
                {
                    "label": s["short"],
                    "colour_value": s["dims"].get(colour, "") if colour in keys else "",
                    **s["bar"],
                }
                for s in scenarios
            ],
            "lines": [
                {"label": s["short"], "points": [[st["users"], st[filters["stat"]]] for st in s["steps"]]}
                for s in scenarios
            ],
        },
    }
    if "users" in filters:
        body = sizing_body(
            campaign,
            filters["users"],
            filters["target"],
            filters["redundancy"],
            filters["counter"],
            filters["stat"],
            filters["trim"],
        )
        section["sizing"] = {
            "users": filters["users"],
            "target": filters["target"],
            "redundancy": filters["redundancy"],
            "api": api_address(
                "sizing",
                {k: filters[k] for k in ("users", "target", "redundancy", "counter", "stat", "trim")},
            ),
            "sentences": [
                answer.sizing_parts(
                    row,
                    keys,
                    filters["users"],
                    filters["redundancy"],
                    answer.crossing_parts(counter, filters["stat"], filters["target"], "/target"),
                    f"/scenarios/{i}",
                )
                for i, row in enumerate(body["scenarios"])
            ],
            "method": body["method"],
        }
    return section


def _compare(campaign: Any, filters: dict[str, Any]) -> dict[str, Any] | None:
    baseline = Scenario.objects.filter(campaign=campaign, pk=filters.get("baseline") or 0).first()
    if baseline is None:
        return None
    body = campaign_compare(campaign, baseline, filters["metric"])
    show = filters["show"]
    at = {id(r): f"/results/{k}" for k, r in enumerate(body["results"])}  # the compare answer's pointers
    picked = [r for r in body["results"] if filters["metric"] or show == "all" or r["group"] == show]
    compared_ids = {r["scenario"] for r in picked if r["matched"]}
    scenarios = list(Scenario.objects.filter(pk__in=compared_ids | {baseline.pk}).order_by("pk"))
    keys = answer.varying([s.dims for s in scenarios])
    names = {s.pk: answer.short_label(s.dims, keys) for s in scenarios}
    rows = []
    for r in picked:
        if not r["matched"] or r["is_baseline"]:
            continue
        name = " — ".join(
            p for p in (metric_words(r["tool"], r["metric"]), r["subject"], r["execution"]) if p
        )
        if r["tested"]:
            verdict = (
                f"yes, p {p_text(r['p_value'])}" if r["significant"] else f"no, p {p_text(r['p_value'])}"
            )
            verdict = verdict.replace("p 0", "p = 0")
        else:
            verdict = r["verdict"]
        rows.append(
            {
                "metric": name,
                "scenario": names[r["scenario"]],
                "mean": value_text(r["mean"], r["unit"]),
                "at": at[id(r)],
                "unit": r["unit"],
                "mean_value": r["mean"],
                "n": r["n"],
                "factor": r["factor"],
                "verdict": verdict,
                "significant": r["significant"],
            }
        )
    return {
        "baseline": names.get(baseline.pk, baseline.label),
        "baseline_full": baseline.label,
        "method": body["method"],
        "api": api_address("compare", {"baseline": baseline.pk, "metric": filters["metric"]}),
        "rows": rows,
        "tested": any(r["tested"] for r in picked),
        "unmatched": sum(1 for r in picked if not r["matched"]),
        "show": "the metric " + filters["metric"] if filters["metric"] else f"{show} metrics",
    }


def _is_copy(row: Mapping[str, Any]) -> bool:
    """A copy result, as the copies page counts them: a robocopy log, or a scenario naming a technique."""
    return bool(row["tool"] == "robocopy" or "technique" in row["dims"])


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
        "machines": list(campaign_machines(campaign)),
    }
    view = link.view
    if view in (ShareLink.View.OVERVIEW, ShareLink.View.CAPACITY):
        filters = capacity_filters(link.filters if view == ShareLink.View.CAPACITY else {})
        context["capacity"] = _capacity(campaign, filters)
        context["ux"] = ux_section(campaign, filters)
        context["fsct"] = fsct_section(campaign)
    if view == ShareLink.View.OVERVIEW:
        context["studies"] = study_tables(campaign)
    if view == ShareLink.View.BLOCKSIZE:
        context["studies"] = study_tables(campaign, lambda row: row["tool"] in ("diskspd", "fio"))
    if view == ShareLink.View.COPIES:
        context["copies"] = copies_section(campaign)
        context["studies"] = study_tables(campaign, _is_copy)
    if view == ShareLink.View.TRACES:
        context["traces"] = traces_section(campaign, link.filters)
    if view == ShareLink.View.COMPARE:
        filters = compare_filters(link.filters)
        found = _compare(campaign, filters)
        if found is not None:
            context["compare"] = found
        context["phases"] = phases_section(campaign, filters.get("phases_baseline"))
    if view == ShareLink.View.HISTORY:
        context["history"] = history_section(campaign, history_filters(campaign, link.filters))
    else:
        context["notes"] = notes_of([campaign])[campaign.pk]
    return context

"""A shared series history: the history of the series the link's campaign belongs to, with frozen parameters.

Frozen when the link is made: the capacity parameters (counter, statistic,
threshold, trim) and the baseline (the series' pinned campaign then, or
``""``: each campaign against the one before it). The link shows the series'
campaigns of its own project, as the history API answers a member
(``GET /api/v1/campaigns/{slug}/history``: the figures' ``data-api``); if the
campaign has since left the series, or the frozen baseline has, the link
shows why it cannot be shown instead. Every metric is named in plain words
(``metric_words``); notes are shown live (deleting a wrong note removes it
from every link), the notes of the series' campaigns only.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from webapp.analysis.counters import parse_counter
from webapp.analysis.history import series_history
from webapp.analysis.units import shown, value_text
from webapp.api.analysis import METHOD, _finite, capacity_query
from webapp.api.errors import ApiError
from webapp.core.models import Campaign
from webapp.sharing import answer
from webapp.sharing.marks import Mark, Part

CAPACITY_KEYS = ("counter", "stat", "threshold", "trim")


def history_filters(
    campaign: Campaign, raw: dict[str, Any], *, baseline: str | None = None
) -> dict[str, Any]:
    """Validated history filters (ValueError saying what is wrong); ``baseline`` given when the link is made.

    The capacity parameters are checked by the API's own rule (``capacity_query``).
    """
    if campaign.series_id is None:
        raise ValueError("this campaign belongs to no series")
    series = campaign.series
    assert series is not None
    filters: dict[str, Any] = {"counter": "", "stat": "avg", "threshold": 80.0, "trim": 10.0}
    filters.update((k, raw[k]) for k in CAPACITY_KEYS if k in raw)
    try:
        filters["threshold"], filters["trim"] = float(filters["threshold"]), float(filters["trim"])
        capacity_query(str(filters["counter"]), str(filters["stat"]), filters["threshold"], filters["trim"])
    except (TypeError, ValueError):
        raise ValueError("threshold and trim must be numbers") from None
    except ApiError as exc:
        raise ValueError(exc.message) from None
    filters["series"] = raw.get("series", series.slug) if baseline is None else series.slug
    filters["baseline"] = raw.get("baseline", "") if baseline is None else baseline
    if filters["series"] != series.slug:
        raise ValueError("the campaign has left the series the link was made for")
    wanted = filters["baseline"]
    if not isinstance(wanted, str) or (wanted and not series.campaigns.filter(slug=wanted[:64]).exists()):
        raise ValueError("the baseline campaign the link was made with has left the series")
    return filters


def _address(filters: dict[str, Any]) -> str:
    """``history?counter=...&baseline=``: the baseline always named, "" too (else the series' own would count)."""
    query = {k: filters[k] for k in CAPACITY_KEYS if filters[k] != ""}
    return "history?" + urlencode({**query, "baseline": filters["baseline"]})


def _change_sentence(
    change: dict[str, Any], at: str, names: dict[str, str], labels: dict[str, str]
) -> list[Part]:
    """ "2026-11, SMB 3.02: users before the threshold changed by -14.0 % against 2026-10 (worse): 323 users,
    was 375 users."."""
    unit = shown(change["unit"], [change["baseline_value"], change["value"]])
    pct = change["change_pct"]
    sign = "+" if pct > 0 else "\u2212" if pct < 0 else ""
    what = " — ".join(p for p in (change["metric_words"], change["subject"], change["execution"]) if p)
    verdict = f" ({change['direction']})" if change["direction"] else ""
    return [
        f"{labels[change['campaign']]}, {names[change['label']]}: {what} changed by ",
        Mark(f"{sign}{abs(pct):.1f} %", f"{at}/change_pct", "%", pct),
        f" against {labels[change['baseline']]}{verdict}: ",
        Mark(
            value_text(change["value"], change["unit"], unit), f"{at}/value", change["unit"], change["value"]
        ),
        ", was ",
        Mark(
            value_text(change["baseline_value"], change["unit"], unit),
            f"{at}/baseline_value",
            change["unit"],
            change["baseline_value"],
        ),
        ".",
    ]


def _name(campaigns: list[dict[str, Any]], kind: str) -> dict[str, str]:
    """Label -> short name of the ``kind`` ("scenarios" with load steps, "results"), by what differs among
    them (as the dashboard's history names them); each item gets its ``name``."""
    keys = answer.varying([item["dims"] for c in campaigns for item in c[kind]])
    names: dict[str, str] = {}
    for c in campaigns:
        for item in c[kind]:
            own = keys or [k for k in item["dims"] if k != "study"]
            item["name"] = names[item["label"]] = answer.short_label(item["dims"], own)
    return names


def _saturation_rows(campaigns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A row per scenario, a cell per campaign: "980 users (900 - 1,000 users)", the bound, or nothing."""
    rows: dict[str, dict[str, Any]] = {}
    for ci, c in enumerate(campaigns):
        for si, s in enumerate(c["scenarios"]):
            row = rows.setdefault(s["label"], {"scenario": s["name"], "cells": [""] * len(campaigns)})
            at = f"/campaigns/{ci}/scenarios/{si}"
            users = s["saturation_users"]
            if users is None:
                row["cells"][ci] = s["bound"].replace("_", " ")
                continue
            text, keys = f"{users:,.0f} users", [f"{at}/saturation_users"]
            if s["interval"]:
                text += f" ({s['interval'][0]:,.0f} \u2013 {s['interval'][1]:,.0f} users)"
                keys += [f"{at}/interval/0", f"{at}/interval/1"]
            value = users if len(keys) == 1 else None
            row["cells"][ci] = Mark(text, " ".join(keys), "|".join("users" for _ in keys), value)
    return list(rows.values())


def _result_rows(campaigns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A row per scenario and headline metric (in plain words), a cell per campaign: its mean, one unit a row."""
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for ci, c in enumerate(campaigns):
        for ri, r in enumerate(c["results"]):
            metric = " \u2014 ".join(p for p in (r["metric_words"], r["subject"], r["execution"]) if p)
            row = rows.setdefault(
                (r["label"], metric),
                {"scenario": r["name"], "metric": metric, "cells": [None] * len(campaigns), "found": []},
            )
            row["found"].append((ci, f"/campaigns/{ci}/results/{ri}", r))
    for row in rows.values():
        unit = shown(row["found"][0][2]["unit"], [r["mean"] for _, _, r in row["found"]])
        for ci, at, r in row.pop("found"):
            row["cells"][ci] = Mark(
                value_text(r["mean"], r["unit"], unit), f"{at}/mean", r["unit"], r["mean"]
            )
    return list(rows.values())


def history_section(campaign: Campaign, filters: dict[str, Any]) -> dict[str, Any]:
    series = campaign.series
    assert series is not None
    ref = parse_counter(filters["counter"])
    body = _finite(
        series_history(
            series, ref, filters["stat"], filters["threshold"], filters["trim"], filters["baseline"]
        )
    )
    campaigns = body["campaigns"]
    names = _name(campaigns, "scenarios") | _name(campaigns, "results")
    labels = {c["slug"]: c["series_key"] or c["name"] for c in campaigns}
    notes = [
        {
            **n,
            "campaign": labels[c["slug"]],
            "scenario_label": names.get(n["scenario_label"], n["scenario_label"]),
        }
        for c in campaigns
        for n in c["notes"]
    ]
    changes = []
    for k, change in enumerate(body["changes"]):
        at = f"/changes/{k}"
        sentence = _change_sentence(change, at, names, labels)
        changes.append(
            {"sentence": sentence, "significant": change["significant"], "verdict": change["verdict"]}
        )
    baseline = body["baseline"]
    return {
        "series": series.name,
        "api": _address(filters),
        "counter": ref.path,
        "crossing": answer.crossing_text(ref.path, filters["stat"], filters["threshold"]),
        "baseline_text": f"the pinned baseline {labels[baseline['campaign']]}"
        if baseline["mode"] == "pinned"
        else "the campaign before it",
        "campaigns": campaigns,
        "columns": [labels[c["slug"]] for c in campaigns],
        "saturation": _saturation_rows(campaigns),
        "results": _result_rows(campaigns),
        "notes": notes,
        "significant": [c for c in changes if c["significant"]],
        "other_changes": [c for c in changes if not c["significant"]],
        "method": METHOD.format(trim=filters["trim"], stat=filters["stat"], threshold=filters["threshold"]),
        "methods": body["methods"],
    }

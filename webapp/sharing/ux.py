"""The shared "User experience" section: per scenario a timing against users with its baseline, threshold and
crossing, as the capacity page draws it (headroom/ux.js), from the answer of
``GET /api/v1/campaigns/{slug}/capacity?timing=`` (``webapp.api.ux_capacity``).

A capacity link freezes the rule the page kept in its address (``timing``, ``ux_baseline``, ``delta_ms`` or
``factor``: ``frozen_ux``, checked like the page, ``analysis.ux_choice``); a link without one shows the
page's default (``logon`` when the campaign has it). A frozen timing the campaign no longer has shows no
section.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from webapp.analysis.timing_steps import placed_timing_names
from webapp.analysis.units import shown, value_text
from webapp.analysis.ux_choice import KEYS, api_query, read_ux
from webapp.api.ux_capacity import ux_capacity_body
from webapp.core.models import Campaign
from webapp.sharing import answer
from webapp.sharing.marks import Mark, Part, api_address


def frozen_ux(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The rule's keys of ``raw`` to freeze into a capacity link, checked (ValueError saying what is wrong)."""
    given = {k: raw[k] for k in KEYS if raw.get(k) not in (None, "")}
    if not given:
        return {}
    timing = given.get("timing", "")
    if not isinstance(timing, str) or "\x00" in timing or len(timing) > 200:
        raise ValueError("timing is a stored timing name such as logon, without NUL characters")
    if not timing:
        raise ValueError("ux_baseline, delta_ms and factor go with timing=<timing name>")
    ux, problems = read_ux(given, [timing])
    if problems or ux is None:
        raise ValueError("; ".join(problems))
    frozen = {"timing": ux["timing"], "ux_baseline": ux["baseline"]}
    return {**frozen, **{k: ux[k] for k in ("delta_ms", "factor") if ux[k] is not None}}


def _users(value: float, key: str, digits: int = 0) -> Mark:
    """ "566.7 users", "875 users": at most ``digits`` decimals, trailing zeros dropped (as HeadroomPages.fmt)."""
    text = f"{value:,.{digits}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return Mark(f"{text} users", key, "users", value)


def _crossing(s: Mapping[str, Any], at: str, threshold: str, unit: str) -> list[Part]:
    parts: list[Part] = []
    if s["bound"] in ("interpolated", "extrapolated") and s["saturation_users"] is not None:
        extrapolated = s["bound"] == "extrapolated"
        parts += ["about " if extrapolated else "at "]
        parts += [_users(s["saturation_users"], f"{at}/saturation_users", 0 if extrapolated else 1)]
        parts += [f" ({s['bound']}"]
        if s["interval"]:
            low, high = s["interval"]
            keys = f"{at}/interval/0 {at}/interval/1"
            parts += [
                ", 95 % interval ",
                Mark(f"{low:,.0f} \u2013 {high:,.0f} users", keys, "users|users", s["interval"]),
            ]
        parts += [")."]
    else:
        parts += [Mark(s["saturation_text"], f"{at}/saturation_text", "", s["saturation_text"]), "."]
    if s["baseline_ms"] is not None:
        parts += [
            " Baseline ",
            Mark(value_text(s["baseline_ms"], "ms", unit), f"{at}/baseline_ms", "ms", s["baseline_ms"]),
        ]
        threshold_ms = s["threshold_ms"]
        parts += [
            ", threshold ",
            Mark(value_text(threshold_ms, "ms", unit), f"{at}/threshold_ms", "ms", threshold_ms),
            ".",
        ]
    return parts


def _words(row: Mapping[str, Any]) -> str:
    if row.get("limit_text"):
        return str(row["limit_text"])
    return "CPU" if row["resource"] == "cpu" else str(row["resource"]).replace("_", " ")


def _limits(s: Mapping[str, Any], at: str) -> list[Part]:
    """ "logon time exceeds its baseline by 1 s at 567 users; runner-up: CPU at 833 users (267 users later).", as
    headroom/ux.js words it."""
    head, runner = s.get("limiting"), s.get("runner_up")
    if not head:
        return []
    parts: list[Part] = [f"{_words(head)} at ", _users(head["users"], f"{at}/limiting/users")]
    if runner:
        parts += [f"; runner-up: {_words(runner)} at ", _users(runner["users"], f"{at}/runner_up/users")]
        parts += [" (", _users(runner["margin"], f"{at}/runner_up/margin"), " later)"]
    return [*parts, "."]


def ux_section(campaign: Campaign, filters: Mapping[str, Any]) -> dict[str, Any] | None:
    """The section of a shared capacity report, or None when the campaign has no timing on the user axis.

    ``body`` is the API's answer itself (drawn by sharing/ux.js); the sentences and rows carry each printed
    figure's text beside its JSON pointer in that answer, in the unit the dashboard prints it in.
    """
    ux, problems = read_ux(filters, placed_timing_names(campaign.pk))
    if ux is None or problems:
        return None
    query = api_query(ux)
    body = ux_capacity_body(campaign, ux["timing"], ux["baseline"], ux["delta_ms"], ux["factor"])
    if not body["scenarios"]:
        return None
    keys = answer.varying([s["dims"] for s in body["scenarios"]])
    unit = shown(
        "ms",
        [v for s in body["scenarios"] for v in (s["baseline_ms"], s["threshold_ms"])]
        + [st[k] for s in body["scenarios"] for st in s["steps"] for k in ("mean", "p50", "p95")],
    )
    scenarios = []
    for i, s in enumerate(body["scenarios"]):
        at = f"/scenarios/{i}"
        name = answer.short_label(s["dims"], keys)
        rows = [
            {
                "at": f"{at}/steps/{k}",
                "name": name,
                **step,
                "users_text": f"{step['users']:,}",
                **{f"{key}_text": value_text(step[key], "ms", unit) or "—" for key in ("mean", "p50", "p95")},
            }
            for k, step in enumerate(s["steps"])
        ]
        scenarios.append(
            {
                "scenario": s["scenario"],
                "name": name,
                "crossing": _crossing(s, at, body["threshold_text"], unit),
                "limits": _limits(s, at),
                "rows": rows,
            }
        )
    title = f"{body['timing']} time against users"
    names = {str(s["scenario"]): n["name"] for s, n in zip(body["scenarios"], scenarios, strict=True)}
    return {
        "api": api_address("capacity", query),
        "body": body,
        "title": title,
        "scenarios": scenarios,
        # What sharing/ux.js draws from: the answer itself, the names and the title (no marks).
        "embed": {"body": body, "names": names, "title": title},
    }

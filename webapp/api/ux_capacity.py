"""``/api/v1/campaigns/{slug}/capacity?timing=``: capacity by user experience, its parameters and its body.

The endpoint itself is ``capacity`` in ``webapp.api.analysis``; given ``timing``
it answers here. The body keeps the counter answer's envelope (``campaign``,
``method``, ``scenarios``, ``data``) and its per-scenario names where they
mean the same (``saturation_users``, ``bound``, ``interval``, ``limits`` ...).
"""

from __future__ import annotations

from typing import Any

from webapp.analysis.capacity import campaign_capacity
from webapp.analysis.counters import parse_counter
from webapp.analysis.expiry import data_note
from webapp.analysis.timing_steps import placed_timing_names
from webapp.analysis.ux_capacity import campaign_ux_capacity
from webapp.analysis.ux_rules import RuleError, UxRule, rule
from webapp.api.errors import ApiError
from webapp.core.models import Campaign

METHOD = (
    "Every {timing} timing belongs to the load step whose window contains its start (from any client of the "
    "run), or to the user count it carries itself (its users field). Per scenario and user count, the mean of "
    "all those timings is the curve. Baseline: {baseline}. The threshold is {margin}. The saturation point is "
    "the smallest user count at which the mean reaches the threshold, linearly interpolated between the last "
    "step below and the first step at or above; when no step crosses, the steps are fitted and the crossing "
    "extrapolated (at most 2x the highest tested load). Interval: a bootstrap over clients' repetitions (each "
    "client's one repetition in one run is a unit; every resample enumerated up to 6 units, else 1,000 draws "
    "from a fixed seed), baseline and threshold found again in each resample; 2.5th to 97.5th percentile."
)


def checked_rule(timing: str, baseline: str, delta_ms: float | None, factor: float | None) -> UxRule:
    try:
        return rule(timing, baseline, delta_ms, factor)
    except RuleError as exc:
        raise ApiError(400, f"invalid_{exc.field}", str(exc)) from None


def _method(found: UxRule) -> str:
    base = (
        "the mean of the lowest user count's timings"
        if not found.lowest
        else f"the mean of the {found.lowest:,} lowest timings (VSIbase)"
    )
    margin = (
        f"the baseline times {found.factor:g}"
        if found.factor is not None
        else f"the baseline plus {found.delta_ms:g} ms"
    )
    return METHOD.format(timing=found.timing, baseline=base, margin=margin)


def ux_capacity_body(
    campaign: Campaign, timing: str, baseline: str, delta_ms: float | None, factor: float | None
) -> dict[str, Any]:
    """The answer for one timing name; ``limits`` are the campaign's limit table, as the counter answer has them."""
    found = checked_rule(timing, baseline, delta_ms, factor)
    names = placed_timing_names(campaign.pk)
    missing = (
        {}
        if found.timing in names
        else {
            "timing_note": f"no timing named {found.timing!r} is on this campaign's user axis (inside a load "
            "step's window, or carrying its own users); a timing with a subject is named 'metric [subject]', "
            "as listed in timings"
        }
    )
    counters = campaign_capacity(campaign, parse_counter(""), "avg", 80.0)
    limits = {s.scenario_id: s.limits for s in counters}
    scenarios = campaign_ux_capacity(campaign, found, limits)
    margin = {"factor": found.factor} if found.factor is not None else {"delta_ms": found.delta_ms}
    return {
        "campaign": campaign.slug,
        "timing": found.timing,
        "baseline": found.baseline,
        **margin,
        "unit": "ms",
        "method": _method(found),
        "threshold_text": found.text,
        "timings": names,
        **missing,
        "scenarios": [s.as_dict() for s in scenarios],
        "data": data_note(campaign=campaign),
    }

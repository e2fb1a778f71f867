"""``/api/v1/campaigns/{slug}/capacity``, ``/compare`` and ``/fsct``: the numbers behind the headline views."""

from __future__ import annotations

import math
from typing import Any

from django.http import HttpRequest
from django.urls import reverse
from ninja import Router

from webapp.analysis.capacity import campaign_capacity
from webapp.analysis.compare import campaign_compare
from webapp.analysis.counters import CounterRef, parse_counter
from webapp.analysis.differences import scenario_differences
from webapp.analysis.expiry import RESULTS, data_note
from webapp.analysis.fsct_curves import fsct_body
from webapp.analysis.logon_phases import logon_phases
from webapp.analysis.remarks import scenario_remarks
from webapp.api.auth import any_auth
from webapp.api.errors import ApiError, not_found
from webapp.api.schemas import ErrorOut
from webapp.api.sizing import sizing_body
from webapp.api.uploads import campaign_for
from webapp.api.ux_capacity import ux_capacity_body
from webapp.core.models import Scenario

router = Router(tags=["analysis"])

METHOD = (
    "Per scenario and load step, the server's samples of the counter inside the step window, trimmed by "
    "{trim:g} % at each end, give avg, max and p95. The saturation point is the smallest user count at which "
    "the {stat} reaches {threshold:g} (or FSCT reports overload), linearly interpolated between the last step "
    "below and the first step at or above. Repeated runs of a scenario are averaged per user count."
)
INTERVALS = (
    "Interval: with one run, the step below and the step at or above the crossing; with repeated runs, "
    "the 2.5th to 97.5th percentile of the point over bootstrap resamples of the runs (every resample "
    "enumerated up to 6 runs, else 1,000 draws from a fixed seed), widened to contain the point. When no "
    "step crosses, the steps are fitted (linear, exponential and power; the smallest residual wins) and "
    "the crossing is extrapolated, at most 2x the highest tested load, with the fit's 95 % prediction "
    "interval. Limits: each resource in the campaign's limit table is evaluated on its step averages by "
    "the same rule; the smallest is the limiting resource."
)


def _finite(body: dict[str, Any]) -> dict[str, Any]:
    """JSON has no NaN: missing statistics become null."""
    cleaned: dict[str, Any] = _clean(body)
    return cleaned


def _clean(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def capacity_query(counter: str, stat: str, threshold: float, trim: float) -> CounterRef:
    """The capacity method's query parameters checked (400 naming the bad one); the counter parsed."""
    if stat not in ("avg", "max", "p95"):
        raise ApiError(400, "invalid_stat", f"stat must be avg, max or p95, not {stat!r}")
    if not 0 <= trim < 50:
        raise ApiError(400, "invalid_trim", "trim is a percentage of each step, from 0 to below 50")
    if not math.isfinite(threshold):
        raise ApiError(400, "invalid_threshold", "threshold must be a number")
    if "\x00" in counter or len(counter) > 1000:
        raise ApiError(400, "invalid_counter", "counter is a path like \\Processor(_Total)\\% Processor Time")
    try:
        return parse_counter(counter)
    except ValueError as exc:
        raise ApiError(400, "invalid_counter", str(exc)) from None


@router.get(
    "/campaigns/{slug}/capacity", auth=any_auth, response={200: dict[str, Any], 400: ErrorOut, 404: ErrorOut}
)
def capacity(
    request: HttpRequest,
    slug: str,
    counter: str = "",
    stat: str = "avg",
    threshold: float = 80.0,
    trim: float = 10.0,
    timing: str = "",
    baseline: str = "first_step",
    delta_ms: float | None = None,
    factor: float | None = None,
) -> dict[str, Any]:
    """Per scenario: dims, ``saturation_users``, ``bound`` and the per-step table ``{users, avg, max, p95, samples}``.

    With ``timing`` (a stored timing name: ``logon``, ``profile.load_ms``, ``fsct.response_ms``): capacity by
    user experience -- the users at which the timing's per-step mean exceeds its ``baseline`` (``first_step``
    or ``lowest:N``) by ``delta_ms`` (default 1000) or reaches ``factor`` x it; per scenario ``baseline_ms``,
    ``threshold_ms``, ``saturation_users``, ``bound``, ``interval`` and the steps ``{users, mean, p50, p95, n,
    hosts}``."""
    campaign = campaign_for(request, slug)
    if timing or delta_ms is not None or factor is not None or baseline != "first_step":
        if not timing:
            raise ApiError(
                400, "invalid_timing", "baseline, delta_ms and factor go with timing=<timing name>"
            )
        return _finite(ux_capacity_body(campaign, timing, baseline, delta_ms, factor))
    ref = capacity_query(counter, stat, threshold, trim)
    scenarios = campaign_capacity(campaign, ref, stat, threshold, trim)  # type: ignore[arg-type]
    comparisons = scenario_differences(scenarios)
    trace_url = reverse("dashboard:traces", args=[campaign.slug])
    listed = [
        {**s.as_dict(), "remarks": scenario_remarks(s, stat, trace_url, comparisons)} for s in scenarios
    ]
    return _finite(
        {
            "campaign": campaign.slug,
            "counter": ref.path,
            "stat": stat,
            "threshold": threshold,
            "trim_pct": trim,
            "method": METHOD.format(trim=trim, stat=stat, threshold=threshold),
            "interval_text": INTERVALS,
            "scenarios": listed,
            "comparisons": comparisons,
            "data": data_note(campaign=campaign),
        }
    )


@router.get(
    "/campaigns/{slug}/sizing", auth=any_auth, response={200: dict[str, Any], 400: ErrorOut, 404: ErrorOut}
)
def sizing(
    request: HttpRequest,
    slug: str,
    users: int,
    target: float = 60.0,
    redundancy: int = 1,
    counter: str = "",
    stat: str = "avg",
    trim: float = 10.0,
) -> dict[str, Any]:
    """Per scenario: ``users_per_server`` (the lowest of the counter at ``target`` and every resource limit,
    ``binding`` names which), ``servers`` = ceil(users / users_per_server) + redundancy; ``counter_*`` keep
    the counter's own figures."""
    campaign = campaign_for(request, slug)
    return _finite(sizing_body(campaign, users, target, redundancy, counter, stat, trim))


@router.get(
    "/campaigns/{slug}/compare", auth=any_auth, response={200: dict[str, Any], 400: ErrorOut, 404: ErrorOut}
)
def compare(request: HttpRequest, slug: str, baseline: int, metric: str = "") -> dict[str, Any]:
    """Per scenario and timing name: mean, stdev, n and the factor vs the baseline scenario."""
    campaign = campaign_for(request, slug)
    if "\x00" in metric or len(metric) > 1000:
        raise ApiError(400, "invalid_metric", "metric is a timing name, without NUL characters")
    base = Scenario.objects.filter(campaign=campaign, pk=baseline).first()
    if base is None:
        raise not_found(f"scenario {baseline} in campaign {slug!r}")
    return _finite({**campaign_compare(campaign, base, metric), "data": data_note(built_from=RESULTS)})


@router.get(
    "/campaigns/{slug}/logon-phases",
    auth=any_auth,
    response={200: dict[str, Any], 400: ErrorOut, 404: ErrorOut},
)
def logon_phases_view(request: HttpRequest, slug: str, baseline: int | None = None) -> dict[str, Any]:
    """Per scenario: the mean of each logon phase (profile load, Group Policy and each extension, scripts,
    shell start, total) with n; a phase not in the uploaded logs is null with ``missing`` true. Comparisons:
    each scenario's phase as a factor of the baseline scenario's, with a bootstrap interval."""
    campaign = campaign_for(request, slug)
    base = None
    if baseline is not None:
        base = Scenario.objects.filter(campaign=campaign, pk=baseline).first()
        if base is None:
            raise not_found(f"scenario {baseline} in campaign {slug!r}")
    return _finite({**logon_phases(campaign, base), "data": data_note(built_from=RESULTS)})


@router.get("/campaigns/{slug}/fsct", auth=any_auth, response={200: dict[str, Any], 404: ErrorOut})
def fsct(request: HttpRequest, slug: str) -> dict[str, Any]:
    """Per scenario with FSCT results: per step ``{users, throughput_sps, overload_pct, overloaded, errors,
    responses: [{operation, ms}]}``, and ``overload_users`` (the first overloaded step) with
    ``last_good_users`` (the step before it); ``scenarios`` is empty when the campaign has no FSCT results."""
    campaign = campaign_for(request, slug)
    return _finite(fsct_body(campaign))

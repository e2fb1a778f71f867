"""Where the logon time goes: the mean of each logon phase per scenario, and phases compared across scenarios.

A phase is one measurement metric (and subject) the event log parser writes
(``docs/logon_phases.md`` gives the channel and event ids of each):

* ``profile``: User Profile Service profile load, ``profile.load_ms``;
* ``group_policy``: Group Policy user logon processing, ``gpo.processing_ms``
  with subject ``user`` (4001 -> 8001);
* ``cse:<name>``: each client-side extension of a user logon's policy run,
  ``logon.cse_ms`` with the extension's name as subject (inside
  ``group_policy``, so the stacked bar draws the policy time the extensions
  leave as ``group_policy_other``);
* ``scripts``: logon scripts, ``logon.scripts_ms``;
* ``shell``: shell start, ``logon.shell_ms`` (inferred, see the docs);
* ``total``: ``logon.total_ms``, profile event 1 to the shell start.

Every value of a phase in a scenario's runs counts once (hosts and runs
pooled: each is one logon). A phase a scenario's logs do not hold has mean
``None`` and ``missing`` true, never 0. Each scenario is compared with the
baseline (``baseline=`` scenario id, else the first scenario with logon
phases): factor = mean / baseline mean, with a 95 % bootstrap interval of that
ratio (each side resampled on its own, :data:`DRAWS` draws from a fixed seed),
judged only with two or more logons on each side (``stats.judged``).
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from django.db import connection

from webapp.analysis.stats import judged, mean, stdev, verdict
from webapp.analysis.uncertainty import LEVEL, SEED, quantiles
from webapp.core.models import Campaign, Scenario

DRAWS = 1000
CSE_PREFIX = "cse:"
# (phase key, metric, subject or None for "each subject is its own phase", label, inferred)
FIXED: tuple[tuple[str, str, str, str, bool], ...] = (
    ("profile", "profile.load_ms", "", "User profile load", False),
    ("group_policy", "gpo.processing_ms", "user", "Group Policy (user logon)", False),
    ("scripts", "logon.scripts_ms", "", "Logon scripts", False),
    ("shell", "logon.shell_ms", "", "Shell start (inferred)", True),
    ("total", "logon.total_ms", "", "Total logon", False),
)
CSE_METRIC = "logon.cse_ms"
METRICS = (CSE_METRIC, *(metric for _, metric, *_ in FIXED))
_SQL = """
    SELECT r.scenario_id, m.metric, m.subject, m.value
    FROM measurement m JOIN core_run r ON r.id = m.run_id
    WHERE r.campaign_id = %s AND m.metric = ANY(%s)
    ORDER BY r.scenario_id, m.metric, m.subject, m.time, m.host_id, m.repetition
"""
METHOD = (
    "Each logon's phases come from the Windows event logs uploaded for the scenario (Group Policy, User Profile "
    "Service, Shell-Core). Mean per phase over every logon found, n = logons. A phase not in the uploaded logs is "
    "missing (null), never 0. Factor = mean / baseline mean; interval: 2.5th to 97.5th percentile of the ratio over "
    f"{DRAWS} bootstrap resamples of each side's logons (fixed seed), judged only with two or more logons per side."
)


def _phase_of(metric: str, subject: str) -> str | None:
    if metric == CSE_METRIC:
        return CSE_PREFIX + subject
    for key, fixed_metric, fixed_subject, _, _ in FIXED:
        if metric == fixed_metric and subject == fixed_subject:
            return key
    return None


def _values(campaign: Campaign) -> dict[int, dict[str, list[float]]]:
    found: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    with connection.cursor() as cursor:
        cursor.execute(_SQL, [campaign.pk, list(METRICS)])
        for scenario_id, metric, subject, value in cursor.fetchall():
            phase = _phase_of(metric, subject)
            if phase is not None:
                found[scenario_id][phase].append(float(value))
    return found


def _catalogue(values: dict[int, dict[str, list[float]]]) -> list[dict[str, Any]]:
    """Every phase any scenario has, in logon order; the fixed ones always (missing where absent)."""
    extensions = sorted({p for phases in values.values() for p in phases if p.startswith(CSE_PREFIX)})
    listed = []
    for key, metric, subject, label, inferred in FIXED:
        if key == "scripts":
            for cse in extensions:
                name = cse.removeprefix(CSE_PREFIX)
                listed.append(_about(cse, CSE_METRIC, name, f"Extension: {name}", False, "group_policy"))
        listed.append(_about(key, metric, subject, label, inferred, None))
    return listed


def _about(
    key: str, metric: str, subject: str, label: str, inferred: bool, within: str | None
) -> dict[str, Any]:
    return {
        "phase": key,
        "metric": metric,
        "subject": subject,
        "label": label,
        "inferred": inferred,
        "within": within,
    }


def _summary(about: dict[str, Any], values: Sequence[float]) -> dict[str, Any]:
    if not values:
        return {**about, "n": 0, "mean_ms": None, "stdev_ms": None, "missing": True}
    return {**about, "n": len(values), "mean_ms": mean(values), "stdev_ms": stdev(values), "missing": False}


def _other_policy(phases: dict[str, list[float]]) -> float | None:
    """The user policy time its extensions do not account for (mean minus the extensions' means), >= 0."""
    policy = phases.get("group_policy")
    if not policy:
        return None
    extensions = sum(mean(v) for p, v in phases.items() if p.startswith(CSE_PREFIX) and v)
    return max(mean(policy) - extensions, 0.0)


def ratio_interval(
    base: Sequence[float], other: Sequence[float], seed: int = SEED
) -> tuple[float, float] | None:
    """95 % interval of mean(other) / mean(base) over bootstrap resamples of each side; None if not judged."""
    if not judged(len(base), len(other)):
        return None
    base, other = sorted(base), sorted(other)  # the same logons in any order give the same interval
    rng = random.Random(seed)
    ratios = []
    for _ in range(DRAWS):
        b = mean(rng.choices(base, k=len(base)))
        o = mean(rng.choices(other, k=len(other)))
        if b > 0:
            ratios.append((o / b, 1.0 / DRAWS))
    if len(ratios) < DRAWS:
        return None
    return quantiles(ratios, LEVEL)


def _comparison(
    about: dict[str, Any], base: Scenario, other: Scenario, b: list[float], o: list[float]
) -> dict[str, Any]:
    row = {
        "phase": about["phase"],
        "label": about["label"],
        "baseline": base.pk,
        "scenario": other.pk,
        "n": [len(o), len(b)],
    }
    if not b or not o or mean(b) == 0:
        missing = [s.label for s, v in ((other, o), (base, b)) if not v]
        return {
            **row,
            "factor": None,
            "interval": None,
            "significant": None,
            "verdict": "missing",
            "missing_in": missing,
        }
    interval = ratio_interval(b, o)
    significant = None if interval is None else not (interval[0] <= 1.0 <= interval[1])
    return {
        **row,
        "factor": mean(o) / mean(b),
        "interval": list(interval) if interval else None,
        "significant": significant,
        "verdict": verdict(significant),
        "missing_in": [],
    }


def logon_phases(campaign: Campaign, baseline: Scenario | None = None) -> dict[str, Any]:
    """Per scenario with logon phases: each phase's mean, n and stdev (missing: null); comparisons
    of each scenario with ``baseline`` (default: the first scenario that has phases)."""
    values = _values(campaign)
    scenarios = list(Scenario.objects.filter(campaign=campaign, pk__in=values).order_by("pk"))
    catalogue = _catalogue(values)
    if baseline is None or baseline.pk not in values:
        baseline = scenarios[0] if scenarios else None
    listed = []
    for scenario in scenarios:
        phases = values[scenario.pk]
        listed.append(
            {
                "scenario": scenario.pk,
                "label": scenario.label,
                "dims": scenario.dims,
                "phases": [_summary(about, phases.get(about["phase"], [])) for about in catalogue],
                "group_policy_other_ms": _other_policy(phases),
            }
        )
    comparisons = []
    if baseline is not None:
        base_phases = values[baseline.pk]
        for scenario in scenarios:
            if scenario.pk == baseline.pk:
                continue
            for about in catalogue:
                key = about["phase"]
                comparisons.append(
                    _comparison(
                        about, baseline, scenario, base_phases.get(key, []), values[scenario.pk].get(key, [])
                    )
                )
    return {
        "campaign": campaign.slug,
        "has_phases": bool(scenarios),
        "baseline": {"scenario": baseline.pk, "label": baseline.label} if baseline else None,
        "phases": catalogue,
        "scenarios": listed,
        "comparisons": comparisons,
        "method": METHOD,
    }

"""Scenario comparison: result metrics as a factor of a baseline scenario, like with like.

Values are pooled per scenario, metric, subject and *execution parameters*
(the benchmark run attributes in ``PARAMS``: block size, queue depth,
read/write mix, threads ...) across runs, hosts and repetitions -- except that
a rate (IO/s, MB/s) several hosts measured at one moment of one run is first
summed, as a fleet that ran together; the factor is
mean / baseline mean of the baseline's values *with the same parameters*, so
an 8 KiB write test is never compared with a 4 KiB read test (those rows get
no factor). Significance is Welch's two-sided t-test at 5 %, run only when
both sides have two or more values (``tested``); otherwise ``significant`` is
None and ``verdict`` says "too few runs" (``webapp.analysis.stats.verdict``).
The baseline's own rows say "baseline", rows without a like baseline
execution "not compared".

Each row is sorted into a group (``webapp.analysis.metric_groups``); the
``headline`` group holds the figures a reader looks at first.
"""

from __future__ import annotations

import json
from typing import Any

from django.db import connection

from webapp.analysis.metric_groups import GROUPS, PARAMS, execution_label, metric_group, metric_label
from webapp.analysis.stats import mean, stdev, verdict, welch_p_value
from webapp.core.models import Campaign, Scenario

ALPHA = 0.05
# A rate (IO/s, MB/s) from several hosts at one moment of a run is one result of a
# fleet that ran together: summed. Any other figure (a logon, a launch, a latency)
# is each host's own value, pooled with the rest.
RATE_UNITS = ("IO/s", "IOPS", "iops", "MB/s", "MiB/s", "B/s")
RATE_SQL = (
    "(m.unit IN (" + ", ".join(f"'{unit}'" for unit in RATE_UNITS) + ")"
    " OR m.metric LIKE '%%.iops' OR m.metric LIKE '%%.mbps')"
)
_VALUES_SQL = f"""
    WITH runs AS (
        SELECT r.id, r.scenario_id, r.tool,
               (SELECT coalesce(jsonb_object_agg(a.key, a.value ORDER BY a.key), '{{}}'::jsonb)
                FROM jsonb_each(r.attributes) a WHERE a.key = ANY(%s)) AS params
        FROM core_run r WHERE r.campaign_id = %s
    ), results AS (
        SELECT m.run_id, m.metric, m.subject, min(m.unit) AS unit, m.repetition, m.time, sum(m.value) AS value
        FROM measurement m JOIN runs ON runs.id = m.run_id
        WHERE {RATE_SQL} AND (%s = '' OR m.metric = %s)
        GROUP BY m.run_id, m.metric, m.subject, m.repetition, m.time
        UNION ALL
        SELECT m.run_id, m.metric, m.subject, m.unit, m.repetition, m.time, m.value
        FROM measurement m JOIN runs ON runs.id = m.run_id
        WHERE NOT {RATE_SQL} AND (%s = '' OR m.metric = %s)
    )
    SELECT runs.scenario_id, m.metric, m.subject, runs.params, min(runs.tool), min(m.unit),
           array_agg(m.value ORDER BY m.repetition, m.time)
    FROM results m JOIN runs ON runs.id = m.run_id
    GROUP BY runs.scenario_id, m.metric, m.subject, runs.params
    ORDER BY m.metric, m.subject, runs.params::text, runs.scenario_id
"""


def _params(raw: Any) -> dict[str, str]:
    found = json.loads(raw) if isinstance(raw, str) else raw  # psycopg hands raw jsonb over as text
    return {str(k): str(v) for k, v in (found or {}).items()}


def _verdict(is_baseline: bool, matched: bool, significant: bool | None) -> str:
    if is_baseline:
        return "baseline"
    return verdict(significant) if matched else "not compared"


MetricRow = tuple[int, str, str, dict[str, str], str, str, list[float]]


def metric_values(campaign: Campaign, metric: str = "") -> list[MetricRow]:
    """(scenario id, metric, subject, params, tool, unit, values) of every result, pooled as the module says."""
    with connection.cursor() as cursor:
        cursor.execute(_VALUES_SQL, [list(PARAMS), campaign.pk, metric, metric, metric, metric])
        return [
            (sid, name, subject, _params(params), tool or "", unit, list(values))
            for sid, name, subject, params, tool, unit, values in cursor.fetchall()
        ]


def campaign_compare(campaign: Campaign, baseline: Scenario, metric: str = "") -> dict[str, Any]:
    rows = metric_values(campaign, metric)
    scenarios = {s.pk: s for s in Scenario.objects.filter(campaign=campaign)}

    def key(name: str, subject: str, params: dict[str, str]) -> tuple[str, str, tuple[tuple[str, str], ...]]:
        return name, subject, tuple(sorted(params.items()))

    base_values = {key(n, s, p): v for sid, n, s, p, _, _, v in rows if sid == baseline.pk}
    results = []
    unmatched = 0
    for scenario_id, name, subject, params, tool, unit, values in rows:
        is_baseline = scenario_id == baseline.pk
        base = base_values.get(key(name, subject, params))
        factor = mean(values) / mean(base) if base and mean(base) != 0 else None
        p_value = welch_p_value(values, base) if base and not is_baseline else None
        unmatched += base is None
        significant = None if p_value is None else p_value < ALPHA
        scenario = scenarios[scenario_id]
        group = metric_group(tool, name, subject)
        results.append(
            {
                "scenario": scenario_id,
                "label": scenario.label,
                "dims": scenario.dims,
                "metric": name,
                "metric_label": metric_label(tool, name),
                "subject": subject,
                "unit": unit,
                "n": len(values),
                "mean": mean(values),
                "stdev": stdev(values),
                "min": min(values),
                "max": max(values),
                "factor": factor,
                "p_value": p_value,
                "tested": p_value is not None,
                "significant": significant,
                "verdict": _verdict(is_baseline, base is not None, significant),
                "is_baseline": is_baseline,
                "tool": tool,
                "params": params,
                "execution": execution_label(params),
                "group": group,
                "headline": group == "headline",
                "matched": base is not None,
            }
        )
    return {
        "baseline": {"scenario": baseline.pk, "label": baseline.label, "dims": baseline.dims},
        "method": (
            "factor = mean / baseline mean of executions with the same parameters (block size, queue depth, "
            "read/write mix, threads); Welch two-sided t-test, significant when p < 0.05, run only where both "
            "sides have two or more values"
        ),
        "groups": [g for g in GROUPS if any(r["group"] == g for r in results)],
        "unmatched": unmatched,
        "results": results,
    }

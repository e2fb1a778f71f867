"""Scenario comparison: every result metric as a factor of a baseline scenario.

Values are pooled per scenario, metric and subject across runs and
repetitions; the factor is mean / baseline mean (so 2.5 means "2.5x slower"
for durations). Significance is Welch's two-sided t-test at 5 %.
"""

from __future__ import annotations

from typing import Any

from django.db import connection

from webapp.analysis.stats import mean, stdev, welch_p_value
from webapp.core.models import Campaign, Scenario

ALPHA = 0.05

_VALUES_SQL = """
    SELECT r.scenario_id, m.metric, m.subject, min(m.unit), array_agg(m.value ORDER BY m.repetition, m.time)
    FROM measurement m JOIN core_run r ON r.id = m.run_id
    WHERE r.campaign_id = %s AND (%s = '' OR m.metric = %s)
    GROUP BY r.scenario_id, m.metric, m.subject
    ORDER BY m.metric, m.subject, r.scenario_id
"""


def campaign_compare(campaign: Campaign, baseline: Scenario, metric: str = "") -> dict[str, Any]:
    with connection.cursor() as cursor:
        cursor.execute(_VALUES_SQL, [campaign.pk, metric, metric])
        rows = cursor.fetchall()
    scenarios = {s.pk: s for s in Scenario.objects.filter(campaign=campaign)}
    base_values = {(m, s): list(v) for sid, m, s, _, v in rows if sid == baseline.pk}
    results = []
    for scenario_id, name, subject, unit, values in rows:
        values = list(values)
        base = base_values.get((name, subject))
        factor = mean(values) / mean(base) if base and mean(base) != 0 else None
        p_value = welch_p_value(values, base) if base and scenario_id != baseline.pk else None
        scenario = scenarios[scenario_id]
        results.append(
            {
                "scenario": scenario_id,
                "label": scenario.label,
                "dims": scenario.dims,
                "metric": name,
                "subject": subject,
                "unit": unit,
                "n": len(values),
                "mean": mean(values),
                "stdev": stdev(values),
                "min": min(values),
                "max": max(values),
                "factor": factor,
                "p_value": p_value,
                "significant": p_value is not None and p_value < ALPHA,
                "is_baseline": scenario_id == baseline.pk,
            }
        )
    return {
        "baseline": {"scenario": baseline.pk, "label": baseline.label, "dims": baseline.dims},
        "method": "factor = mean / baseline mean; Welch two-sided t-test, significant when p < 0.05",
        "results": results,
    }

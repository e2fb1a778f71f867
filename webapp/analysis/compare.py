"""Scenario comparison: result metrics as a factor of a baseline scenario, like with like.

Values are pooled per scenario, metric, subject and *execution parameters*
(the benchmark run attributes in ``PARAMS``: block size, queue depth,
read/write mix, threads ...) across runs, hosts and repetitions -- except that
a figure several hosts measured at one moment of one run (a fleet that ran
together) is first combined by ``analysis.hosts``: rates and counts summed, a
mean latency weighted by its IOPS, a percentile the highest host's. Each row
says how (``combined``), from how many ``hosts``, and keeps each host's own
mean (``per_host``: ``[name, mean]``) for the per-host rows. The factor is
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
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db import connection

from webapp.analysis.hosts import combine, host_rows, kind, operations_metric
from webapp.analysis.metric_groups import GROUPS, PARAMS, execution_label, metric_group, metric_label
from webapp.analysis.stats import mean, stdev, verdict, welch_p_value
from webapp.core.models import Campaign, Host, Scenario

ALPHA = 0.05
# Every result of the campaign's runs, in the order the rows are listed (pooling keeps it).
_VALUES_SQL = """
    WITH runs AS (
        SELECT r.id, r.scenario_id, r.tool,
               (SELECT coalesce(jsonb_object_agg(a.key, a.value ORDER BY a.key), '{}'::jsonb)
                FROM jsonb_each(r.attributes) a WHERE a.key = ANY(%s)) AS params
        FROM core_run r WHERE r.campaign_id = %s
    )
    SELECT runs.scenario_id, runs.params::text, runs.tool, m.run_id, m.metric, m.subject, m.unit,
           m.repetition, m.time, m.host_id, m.value
    FROM measurement m JOIN runs ON runs.id = m.run_id
    WHERE %s = '' OR m.metric = %s OR m.metric LIKE '%%.iops'
    ORDER BY m.metric, m.subject, runs.params::text, runs.scenario_id, m.repetition, m.time, m.host_id
"""
RowKey = tuple[int, str, str, str]  # scenario, metric, subject, params (jsonb text)


@dataclass
class Pooled:
    """One compare row's values, once its hosts are combined, and each host's own values."""

    tool: str
    unit: str
    values: list[float] = field(default_factory=list)
    by_host: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    combined: set[str] = field(default_factory=set)


def _pooled(rows: list[tuple[Any, ...]], metric: str) -> dict[RowKey, Pooled]:
    """Each row's values: a result several hosts recorded at one moment of one run is combined by
    ``analysis.hosts`` (rates and counts summed, a latency weighted by its IOPS, a percentile the
    highest host's) into one value; a figure without weights stays each host's own value, pooled."""
    moments: dict[tuple[RowKey, int, int, Any], dict[int, float]] = defaultdict(dict)
    about: dict[RowKey, tuple[str, str]] = {}
    rates: dict[tuple[int, str, str, int, Any], dict[int, float]] = defaultdict(dict)
    for sid, params, tool, run_id, name, subject, unit, repetition, time, host_id, value in rows:
        if name.endswith(".iops"):
            rates[(run_id, name, subject, repetition, time)][host_id] = value
        if metric and name != metric:
            continue  # fetched as another row's weights only
        key = (sid, name, subject, params)
        about.setdefault(key, (tool or "", unit))
        moments[(key, run_id, repetition, time)][host_id] = value
    pooled: dict[RowKey, Pooled] = {}
    for (key, run_id, repetition, time), by_host in moments.items():
        tool, unit = about[key]
        row = pooled.setdefault(key, Pooled(tool, unit))
        for host_id, value in by_host.items():
            row.by_host[host_id].append(value)
        what = kind(key[1], unit)
        ops = operations_metric(key[1])
        weights = rates.get((run_id, ops, key[2], repetition, time), {}) if ops else {}
        if len(by_host) > 1 and what == "mean" and not all(weights.get(h, 0) > 0 for h in by_host):
            row.values.extend(by_host.values())
            row.combined.add("pooled")
            continue
        value, how = combine(what, by_host, weights)
        row.values.append(value)
        if how:
            row.combined.add(how)
    return pooled


def _params(raw: Any) -> dict[str, str]:
    found = json.loads(raw) if isinstance(raw, str) else raw  # psycopg hands raw jsonb over as text
    return {str(k): str(v) for k, v in (found or {}).items()}


def _verdict(is_baseline: bool, matched: bool, significant: bool | None) -> str:
    if is_baseline:
        return "baseline"
    return verdict(significant) if matched else "not compared"


# scenario id, metric, subject, params, tool, unit, values (hosts combined), and how they were pooled
MetricRow = tuple[int, str, str, dict[str, str], str, str, list[float], Pooled]


def metric_values(campaign: Campaign, metric: str = "") -> list[MetricRow]:
    """Every result row of the campaign, its hosts combined and pooled as the module says."""
    with connection.cursor() as cursor:
        cursor.execute(_VALUES_SQL, [list(PARAMS), campaign.pk, metric, metric])
        found = _pooled(cursor.fetchall(), metric)
    return [
        (sid, name, subject, _params(params), p.tool, p.unit, p.values, p)
        for (sid, name, subject, params), p in found.items()
    ]


def campaign_compare(campaign: Campaign, baseline: Scenario, metric: str = "") -> dict[str, Any]:
    rows = metric_values(campaign, metric)
    names = dict(
        Host.objects.filter(pk__in={h for row in rows for h in row[7].by_host}).values_list("pk", "name")
    )
    scenarios = {s.pk: s for s in Scenario.objects.filter(campaign=campaign)}

    def key(name: str, subject: str, params: dict[str, str]) -> tuple[str, str, tuple[tuple[str, str], ...]]:
        return name, subject, tuple(sorted(params.items()))

    base_values = {key(n, s, p): v for sid, n, s, p, _, _, v, _ in rows if sid == baseline.pk}
    results = []
    unmatched = 0
    for scenario_id, name, subject, params, tool, unit, values, pooled in rows:
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
                "hosts": len(pooled.by_host),
                "combined": ", ".join(sorted(pooled.combined)),
                "per_host": [list(pair) for pair in host_rows(pooled.by_host, names)],
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

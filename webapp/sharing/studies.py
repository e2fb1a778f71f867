"""Every study of a campaign as a short table for the shared overview (and the block-size and copies links).

Scenarios are grouped by their ``study`` dimension; within a study the first
scenario with results is the baseline, and each headline metric (see
``webapp.analysis.metric_groups``) of each execution gets one row: the mean
per scenario, in readable units, with its factor against the baseline where
the baseline ran the same execution. Capacity runs (load steps, no result
metrics) are the capacity section's, not a table here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from webapp.analysis.compare import campaign_compare
from webapp.analysis.metric_groups import metric_words
from webapp.analysis.units import value_text
from webapp.core.models import Campaign, Scenario
from webapp.sharing.answer import short_label, varying
from webapp.sharing.marks import Mark, api_address


def p_text(p_value: float | None) -> str:
    if p_value is None:
        return "not tested"
    return "< 0.001" if p_value < 0.001 else f"{p_value:.3f}"


def _cell(cell: Mapping[str, Any], at: str) -> Mark:
    """ "85.5 s" and, off the baseline, its factor against it in brackets (cell ``at`` of the compare answer)."""
    text = value_text(cell["mean"], cell["unit"])
    if not text:
        return Mark("", "", "", None)
    if cell["is_baseline"] or cell["factor"] is None:
        return Mark(text, f"{at}/mean", cell["unit"], cell["mean"])
    return Mark(
        f"{text} ({cell['factor']:.2f}\u00d7)", f"{at}/mean {at}/factor", f"{cell['unit']}|\u00d7", None
    )


def _study_table(rows: Sequence[Mapping[str, Any]], scenarios: Sequence[Scenario]) -> dict[str, Any]:
    keys = varying([s.dims for s in scenarios])
    names = {s.pk: short_label(s.dims, keys) for s in scenarios}
    order = [s.pk for s in scenarios if any(r["scenario"] == s.pk for r in rows)]
    lines: dict[tuple[str, str, str], dict[int, Mapping[str, Any]]] = {}
    for row in rows:
        words = metric_words(row["tool"], row["metric"])
        lines.setdefault((words, row["subject"], row["execution"]), {})[row["scenario"]] = row
    body = []
    for (metric, subject, execution), cells in lines.items():
        name = " — ".join(p for p in (metric, subject, execution) if p)
        shown = []
        for pk in order:
            cell = cells.get(pk)
            shown.append(Mark("", "", "", None) if cell is None else _cell(cell, cell["at"]))
        body.append({"metric": name, "cells": shown})
    return {"columns": [names[pk] for pk in order], "rows": body}


def study_tables(
    campaign: Campaign, keep: Callable[[Mapping[str, Any]], bool] = lambda row: True
) -> list[dict[str, Any]]:
    """``[{study, baseline, columns, rows}]`` for every study with headline results that ``keep`` accepts."""
    scenarios = list(Scenario.objects.filter(campaign=campaign).order_by("pk"))
    studies: dict[str, list[Scenario]] = {}
    for scenario in scenarios:
        studies.setdefault(scenario.dims.get("study", ""), []).append(scenario)
    tables = []
    for study, members in studies.items():
        ids = {s.pk for s in members}
        for baseline in members:
            body = campaign_compare(campaign, baseline)
            rows = [
                {**r, "at": f"/results/{k}"}  # where the compare answer holds it (the cells' data-key)
                for k, r in enumerate(body["results"])
                if r["scenario"] in ids and r["headline"] and keep(r) and r["tool"] != "fsct"
            ]
            if any(r["scenario"] == baseline.pk for r in rows):
                break
        else:
            continue
        table = _study_table(rows, members)
        tables.append(
            {
                "study": study or "results",
                "api": api_address("compare", {"baseline": baseline.pk}),
                "baseline": short_label(baseline.dims, varying([s.dims for s in members])),
                **table,
            }
        )
    return tables

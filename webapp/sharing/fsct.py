"""The shared FSCT curves: throughput and response times against users with the overload step, as the capacity
page shows them (``analysis.fsct_curves``, the answer of ``GET /api/v1/campaigns/{slug}/fsct``)."""

from __future__ import annotations

from typing import Any

from webapp.analysis.fsct_curves import fsct_body
from webapp.analysis.units import number, value_text
from webapp.core.models import Campaign
from webapp.sharing import answer


def fsct_section(campaign: Campaign) -> dict[str, Any] | None:
    """The FSCT section of a shared capacity report, or None when the campaign has no FSCT results.

    ``body`` is the API's answer itself (drawn by sharing/fsct.js); the rows carry each printed figure's
    text beside its JSON pointer in that answer, in the unit the dashboard prints it in (headroom/fsct.js).
    """
    body = fsct_body(campaign)
    if not body["scenarios"]:
        return None
    keys = answer.varying([s["dims"] for s in body["scenarios"]])
    names = {s["scenario"]: answer.short_label(s["dims"], keys) for s in body["scenarios"]}
    operations: list[str] = []
    for s in body["scenarios"]:
        operations.extend(op for op in s["operations"] if op not in operations)
    rows = []
    for i, s in enumerate(body["scenarios"]):
        for k, step in enumerate(s["steps"]):
            at = f"/scenarios/{i}/steps/{k}"
            by_op = {r["operation"]: (j, r["ms"]) for j, r in enumerate(step["responses"])}
            rows.append(
                {
                    "at": at,
                    "name": names[s["scenario"]],
                    "users": step["users"],
                    "users_text": f"{step['users']:,}",
                    "overload_step": step["users"] == s["overload_users"],
                    "throughput_sps": step["throughput_sps"],
                    "throughput": number(step["throughput_sps"], "scenarios/s") or "—",
                    "overload_pct": step["overload_pct"],
                    "overload": value_text(step["overload_pct"], "%") or "—",
                    "overloaded": "yes" if step["overloaded"] else "no",
                    "errors": step["errors"],
                    "errors_text": "—" if step["errors"] is None else f"{step['errors']:,.0f}",
                    "responses": [
                        {
                            "at": f"{at}/responses/{by_op[op][0]}/ms" if op in by_op else "",
                            "ms": by_op[op][1] if op in by_op else None,
                            "text": (value_text(by_op[op][1], "ms") if op in by_op else "") or "—",
                        }
                        for op in operations
                    ],
                }
            )
    return {
        "api": "fsct",
        "body": body,
        "names": {str(k): v for k, v in names.items()},
        "operations": operations,
        "overloads": [
            {"name": names[s["scenario"]], "at": f"/scenarios/{i}/overload_text", "text": s["overload_text"]}
            for i, s in enumerate(body["scenarios"])
        ],
        "rows": rows,
    }

"""The SQL of the provisioned Grafana dashboard, as Grafana's PostgreSQL data source would send it.

``docker/grafana/dashboards/headroom.json`` holds every query (variables,
panels, annotations); the tests read them from there. ``expand`` stands in
for Grafana: its frontend substitutes the dashboard variables, its backend
the ``$__`` macros (``pkg/tsdb/grafana-postgresql-datasource/macros.go``):

* ``$name`` -- a single-value variable as is, with ``'`` doubled (the SQL
  quotes it: ``'$campaign'``); a multi-value variable as quoted literals
  joined by commas (``h.id IN ($host)`` becomes ``h.id IN ('1','2')``);
* ``$__timeFilter(c)`` -- ``c BETWEEN '<from>' AND '<to>'``;
* ``$__timeFrom()``, ``$__timeTo()`` -- ``'<from>'``, ``'<to>'``;
* ``$__timeGroupAlias(c, $__interval)`` --
  ``floor(extract(epoch from c)/<seconds>)*<seconds> AS "time"``, the form
  Grafana sends when the data source's TimescaleDB option is off. With it on
  Grafana sends ``time_bucket('<seconds>s', c)``, which puts every row into
  the same bucket; the tests use the form that runs in both database modes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from tests.paths import REPO

DASHBOARD = REPO / "docker" / "grafana" / "dashboards" / "headroom.json"
READER_SQL = REPO / "docker" / "grafana" / "reader.sql"
UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


@dataclass(frozen=True)
class Query:
    kind: str  # "variable", "panel" or "annotation"
    name: str  # the variable's name, the panel's or annotation's title
    sql: str


def dashboard() -> dict[str, Any]:
    data = json.loads(DASHBOARD.read_text())
    assert isinstance(data, dict)
    return data


def queries() -> list[Query]:
    """Every SQL query of the dashboard, in the order Grafana shows them."""
    data = dashboard()
    found = [
        Query("variable", var["name"], var["query"])
        for var in data["templating"]["list"]
        if var["type"] == "query"
    ]
    found += [
        Query("panel", panel["title"], target["rawSql"])
        for panel in data["panels"]
        for target in panel["targets"]
    ]
    found += [
        Query("annotation", annotation["name"], annotation["target"]["rawSql"])
        for annotation in data["annotations"]["list"]
        if "target" in annotation
    ]
    return found


def query(kind: str, name: str) -> str:
    (sql,) = [q.sql for q in queries() if (q.kind, q.name) == (kind, name)]
    return sql


def seconds(interval: str) -> int:
    interval = interval.strip().strip("'\"")
    return int(interval[:-1]) * UNITS[interval[-1]]


def literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def expand(
    sql: str,
    variables: dict[str, str | list[str]],
    *,
    start: str = "",
    end: str = "",
    interval: str = "1m",
) -> str:
    """What Grafana sends for ``sql`` (see the module docstring)."""
    sql = sql.replace("$__interval", interval)
    sql = re.sub(
        r"\$__timeGroupAlias\(([^,]+),\s*([^)]+)\)",
        lambda m: f'floor(extract(epoch from {m[1]})/{seconds(m[2])})*{seconds(m[2])} AS "time"',
        sql,
    )
    sql = re.sub(r"\$__timeFilter\(([^)]+)\)", lambda m: f"{m[1]} BETWEEN '{start}' AND '{end}'", sql)
    sql = sql.replace("$__timeFrom()", f"'{start}'").replace("$__timeTo()", f"'{end}'")

    def variable(match: re.Match[str]) -> str:
        value = variables[match[1]]
        if isinstance(value, list):
            return ",".join(literal(v) for v in value)
        return value.replace("'", "''")

    sql = re.sub(r"\$(\w+)", variable, sql)
    assert "$" not in sql, sql
    return sql

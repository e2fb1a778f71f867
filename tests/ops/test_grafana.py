"""The SQL in docs/grafana.md runs, as Grafana's read-only role, and gives the demo's real numbers.

The queries are taken from the markdown's code blocks (tagged ``sql
grafana:<name>``), with Grafana's macros and variables replaced by what
Grafana sends: ``$__timeFilter(c)`` becomes ``c BETWEEN '<from>' AND '<to>'``
and ``$__timeGroupAlias(c, $__interval)`` becomes
``floor(extract(epoch from c)/<seconds>)*<seconds> AS "time"``.
"""

from __future__ import annotations

import os
import re

import pytest
from django.db import ProgrammingError, connection, transaction

from tests.factories import make_user
from tests.paths import REPO

pytestmark = pytest.mark.django_db

DOC = REPO / "docs" / "grafana.md"
UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def blocks() -> dict[str, str]:
    text = DOC.read_text()
    found = dict(re.findall(r"```sql grafana:(\S+)\n(.*?)```", text, flags=re.DOTALL))
    assert set(found) == {"role", "campaign-variable", "cpu-vs-users", "counter-trace"}
    return found


def expand(sql: str, *, campaign: str, start: str = "", end: str = "", interval: str = "1m") -> str:
    """What Grafana's PostgreSQL data source would send for this query."""
    seconds = int(interval[:-1]) * UNITS[interval[-1]]
    sql = sql.replace("$__interval", f"'{interval}'")
    sql = re.sub(
        r"\$__timeGroupAlias\(([^,]+),\s*'[^']+'\)",
        lambda m: f'floor(extract(epoch from {m.group(1)})/{seconds})*{seconds} AS "time"',
        sql,
    )
    sql = re.sub(r"\$__timeFilter\(([^)]+)\)", lambda m: f"{m.group(1)} BETWEEN '{start}' AND '{end}'", sql)
    sql = sql.replace("$campaign", campaign)
    assert "$" not in sql, sql
    return sql


@pytest.fixture
def grafana(demo):
    """A cursor acting as the doc's read-only role (created in the test's transaction, rolled back)."""
    role = f"grafana_reader_test_{os.getpid()}"
    grants = blocks()["role"].replace("grafana_reader", role)
    grants = grants.replace("DATABASE headroom", f'DATABASE "{connection.settings_dict["NAME"]}"')
    with connection.cursor() as cursor:
        cursor.execute(grants)
        cursor.execute(f"SET LOCAL ROLE {role}")
        yield cursor
        cursor.execute("RESET ROLE")


def run(cursor, sql: str) -> list[tuple]:
    cursor.execute(sql)
    return cursor.fetchall()


def test_the_campaign_variable_lists_the_demo(grafana):
    assert ("demo",) in run(grafana, expand(blocks()["campaign-variable"], campaign="demo"))


def test_the_role_reads_nothing_but_the_granted_tables(grafana):
    with pytest.raises(ProgrammingError, match="permission denied"), transaction.atomic():
        grafana.execute("SELECT count(*) FROM auth_user")


def test_the_cpu_panel_gives_each_scenarios_average_per_load_step(grafana, client, demo):
    rows = run(grafana, expand(blocks()["cpu-vs-users"], campaign="demo"))
    assert len(rows) == 50  # five FSCT scenarios, ten steps each
    cpu = {(scenario, users): float(value) for scenario, users, value in rows}
    no_av = "2012 R2 / SMB 3.02 / SSD / AV off"
    assert [cpu[(no_av, users)] for users in range(100, 1001, 100)] == [
        8.0, 15.0, 22.0, 30.0, 37.0, 45.0, 53.0, 62.0, 71.0, 78.0,
    ]  # fmt: skip
    av_on = "2012 R2 / SMB 3.02 / SSD / AV on"
    assert (cpu[(av_on, 800)], cpu[(av_on, 900)]) == (77.0, 86.0)
    assert cpu[("2008 R2 / SMB 2.1 / SSD / AV off", 1000)] == 82.0

    # The same averages as the capacity API's (which trims each step's ends).
    connection.cursor().execute("RESET ROLE")
    client.force_login(make_user(demo.project))
    body = client.get("/api/v1/campaigns/demo/capacity").json()
    compared = 0
    for scenario in body["scenarios"]:
        dims = scenario["dims"]
        if dims.get("study") != "fsct-capacity":
            continue
        name = f"{dims['server_os']} / SMB {dims['smb_dialect']} / {dims['disk_type']} / AV {dims['av']}"
        for step in scenario["steps"]:
            assert cpu[(name, step["users"])] == pytest.approx(step["avg"], abs=0.05)
            compared += 1
    assert compared == 50


def test_the_trace_panel_gives_one_point_per_interval_from_the_rollup(grafana, demo):
    window = {"campaign": "demo", "start": "2015-02-17T09:00:00Z", "end": "2015-02-17T11:00:00Z"}
    minutes = run(grafana, expand(blocks()["counter-trace"], interval="1m", **window))
    assert len(minutes) == 120
    assert {metric for _, metric, _ in minutes} == {"FS01"}
    assert minutes[0][0] == 1424163600  # 2015-02-17 09:00 UTC, as Grafana's epoch seconds
    assert minutes[0][2] < 4  # the idle minute before the first step
    assert minutes[1][2] == pytest.approx(8.0)  # 100 users
    assert sum(1 for _, _, value in minutes if value == pytest.approx(78.0)) == 10  # the 1,000-user step

    tens = run(grafana, expand(blocks()["counter-trace"], interval="10m", **window))
    assert len(tens) == 12
    assert [t for t, _, _ in tens] == [1424163600 + 600 * i for i in range(12)]
    # sum(total) / sum(n) over the rollup is exactly the mean of the raw samples.
    for start, _, value in tens:
        grafana.execute(
            "SELECT avg(s.value) FROM counter_sample s "
            "JOIN timeseries_counterseries cs ON cs.id = s.series_id "
            "JOIN core_host h ON h.id = cs.host_id "
            "WHERE h.project_id = %s AND h.name = 'FS01' AND cs.object = 'Processor' "
            "AND cs.counter = '%% Processor Time' AND cs.instance = '_Total' "
            "AND s.time >= to_timestamp(%s) AND s.time < to_timestamp(%s)",
            [demo.project_id, start, start + 600],
        )
        assert value == pytest.approx(grafana.fetchone()[0])

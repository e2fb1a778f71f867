"""The provisioned Grafana dashboard's SQL runs, as Grafana's read-only role, and gives the demo's real numbers.

Every query is read from ``docker/grafana/dashboards/headroom.json`` and
expanded the way Grafana would (``tests/ops/grafana_queries.py``); the role is
the one ``docker/grafana/reader.sql`` creates.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime

import pytest
from django.db import ProgrammingError, connection, transaction
from django.db.models import Avg, Count, Max, Min

from tests.factories import make_user
from tests.ops.grafana_queries import READER_SQL, dashboard, expand, queries, query
from webapp.core.models import Run, RunStep
from webapp.timeseries.models import CounterRollup, CounterSample, Measurement

pytestmark = pytest.mark.django_db

CPU = "Processor\\% Processor Time"
MEMORY = "Memory\\Available MBytes"
FS01_CPU = "\\\\FS01\\Processor(_Total)\\% Processor Time"
RUN = "fsct-2012r2-smb3.02-ssd-av-off"  # the demo's 2015-02-17 run
WINDOW = {"start": "2015-02-17T09:00:00Z", "end": "2015-02-17T11:00:00Z"}


def reader_sql(role: str) -> str:
    """reader.sql with psql's ``:'password'`` filled in, for a role of the test's own."""
    return READER_SQL.read_text().replace(":'password'", "'test-password'").replace("grafana_reader", role)


@pytest.fixture
def grafana(demo):
    """A cursor acting as reader.sql's role (created in the test's transaction, rolled back)."""
    role = f"grafana_reader_test_{os.getpid()}"
    with connection.cursor() as cursor:
        cursor.execute(reader_sql(role))
        cursor.execute(f"SET LOCAL ROLE {role}")
        yield cursor
        cursor.execute("RESET ROLE")


def run(cursor, sql: str) -> list[tuple]:
    cursor.execute(sql)
    return cursor.fetchall()


def run_id(name: str = RUN) -> str:
    return str(Run.objects.get(campaign__slug="demo", name=name).pk)


def test_it_reads_every_panel_from_the_data_source_variable():
    data = dashboard()
    assert data["uid"] == "headroom-results" and data["schemaVersion"] == 39
    variables = [var["name"] for var in data["templating"]["list"]]
    assert variables == ["datasource", "campaign", "run", "host", "counter"]
    assert data["templating"]["list"][0]["query"] == "grafana-postgresql-datasource"
    sources = [panel["datasource"] for panel in data["panels"]]
    sources += [target["datasource"] for panel in data["panels"] for target in panel["targets"]]
    sources += [var["datasource"] for var in data["templating"]["list"] if var["type"] == "query"]
    sources += [a["datasource"] for a in data["annotations"]["list"] if "target" in a]
    assert {source["uid"] for source in sources} == {"${datasource}"}
    assert [(q.kind, q.name) for q in queries()] == [
        ("variable", "campaign"),
        ("variable", "run"),
        ("variable", "host"),
        ("variable", "counter"),
        ("panel", "Counter traces: $counter"),
        ("panel", "CPU % against users, per scenario"),
        ("panel", "Timings of the run"),
        ("panel", "Runs of $campaign"),
        ("annotation", "Load steps"),
    ]


def test_it_runs_every_query_of_the_dashboard_and_each_returns_rows(grafana):
    variables: dict[str, str | list[str]] = {
        "campaign": "demo",
        "run": run_id(),
        "host": [str(Run.objects.get(pk=run_id()).hosts.get().pk)],
        "counter": [CPU],
    }
    for q in queries():
        rows = run(grafana, expand(q.sql, variables, **WINDOW))
        # The timings table is empty for an FSCT run: it has no measurements.
        assert rows or q.name == "Timings of the run", q


def test_the_role_reads_nothing_but_the_granted_tables(grafana):
    with pytest.raises(ProgrammingError, match="permission denied"), transaction.atomic():
        grafana.execute("SELECT count(*) FROM auth_user")


def test_the_reader_script_can_run_again(db):
    role = f"grafana_reader_again_{os.getpid()}"
    with connection.cursor() as cursor:
        cursor.execute(reader_sql(role))
        cursor.execute(reader_sql(role))  # ALTER ROLE instead of CREATE ROLE
        cursor.execute("SELECT rolcanlogin FROM pg_roles WHERE rolname = %s", [role])
        assert cursor.fetchone() == (True,)


def test_the_variables_list_campaigns_runs_hosts_and_counters(grafana):
    campaigns = run(grafana, expand(query("variable", "campaign"), {}))
    assert ("demo",) in campaigns

    runs = run(grafana, expand(query("variable", "run"), {"campaign": "demo"}))
    assert len(runs) == Run.objects.filter(campaign__slug="demo").count() == 51
    assert runs[:2] == [
        (int(run_id("fsct-2008r2-smb2.1-ssd-av-off")), "fsct-2008r2-smb2.1-ssd-av-off"),
        (int(run_id()), RUN),
    ]

    hosts = run(grafana, expand(query("variable", "host"), {"run": run_id()}))
    fs01 = Run.objects.get(pk=run_id()).hosts.get()
    assert hosts == [(fs01.pk, "FS01")]

    counters = run(grafana, expand(query("variable", "counter"), {"run": run_id()}))
    assert [c for (c,) in counters] == [
        "Memory\\Available MBytes",
        "Network Interface\\Bytes Total/sec",
        "PhysicalDisk\\Avg. Disk Queue Length",
        "PhysicalDisk\\Disk Transfers/sec",
        CPU,
    ]


def test_the_load_step_annotations_are_the_runs_steps(grafana):
    sql = query("annotation", "Load steps")
    rows = run(grafana, expand(sql, {"run": run_id()}, **WINDOW))
    steps = RunStep.objects.filter(run_id=run_id()).order_by("started_at")
    assert rows == [(s.started_at, s.ended_at, f"{s.users} users", "load step") for s in steps]
    assert [text for _, _, text, _ in rows] == [f"{users} users" for users in range(100, 1001, 100)]
    assert (rows[0][0], rows[0][1]) == (
        datetime(2015, 2, 17, 9, 1, tzinfo=UTC),
        datetime(2015, 2, 17, 9, 11, tzinfo=UTC),
    )

    # A step shows when it overlaps the time range: 500 users ended at 09:59, 800 started at 10:25.
    half_hour = {"start": "2015-02-17T10:00:00Z", "end": "2015-02-17T10:30:00Z"}
    rows = run(grafana, expand(sql, {"run": run_id()}, **half_hour))
    assert [text for _, _, text, _ in rows] == ["600 users", "700 users", "800 users"]


def trace(cursor, interval: str, counters: list[str]) -> list[tuple]:
    host = str(Run.objects.get(pk=run_id()).hosts.get().pk)
    variables: dict[str, str | list[str]] = {"host": [host], "counter": counters}
    return run(
        cursor, expand(query("panel", "Counter traces: $counter"), variables, interval=interval, **WINDOW)
    )


def test_the_trace_panel_gives_the_rollups_average_min_and_max_per_minute(grafana):
    minutes = trace(grafana, "1m", [CPU])
    assert len(minutes) == 120
    assert {metric for _, metric, *_ in minutes} == {FS01_CPU}
    assert minutes[0][0] == 1424163600  # 2015-02-17 09:00 UTC, as Grafana's epoch seconds
    assert minutes[1][2] == pytest.approx(8.0)  # 100 users
    assert sum(1 for _, _, avg, _, _ in minutes if avg == pytest.approx(78.0)) == 10  # the 1,000-user step

    rollups = CounterRollup.objects.filter(
        series__host__name="FS01",
        series__object="Processor",
        series__counter="% Processor Time",
        bucket__gte=datetime(2015, 2, 17, 9, tzinfo=UTC),
        bucket__lt=datetime(2015, 2, 17, 11, tzinfo=UTC),
    ).order_by("bucket")
    expected = [(int(r.bucket.timestamp()), r.total / r.n, r.minimum, r.maximum) for r in rollups]
    assert len(expected) == 120
    for (time, _, avg, lowest, highest), want in zip(minutes, expected, strict=True):
        assert (int(time), avg, lowest, highest) == pytest.approx(want)

    both = trace(grafana, "1m", [CPU, MEMORY])
    assert len(both) == 240
    assert {metric for _, metric, *_ in both} == {FS01_CPU, "\\\\FS01\\Memory\\Available MBytes"}


def test_the_trace_panel_over_ten_minutes_is_the_mean_and_extremes_of_the_samples(grafana, demo):
    tens = trace(grafana, "10m", [CPU])
    assert [time for time, *_ in tens] == [1424163600 + 600 * i for i in range(12)]
    connection.cursor().execute("RESET ROLE")
    for start, _, avg, lowest, highest in tens:
        samples = CounterSample.objects.filter(
            series__host__project=demo.project,
            series__host__name="FS01",
            series__object="Processor",
            series__instance="_Total",
            series__counter="% Processor Time",
            time__gte=datetime.fromtimestamp(int(start), UTC),
            time__lt=datetime.fromtimestamp(int(start) + 600, UTC),
        ).aggregate(avg=Avg("value"), low=Min("value"), high=Max("value"))
        assert (avg, lowest, highest) == (pytest.approx(samples["avg"]), samples["low"], samples["high"])


def test_the_cpu_panel_gives_each_scenarios_average_per_load_step(grafana, client, demo):
    rows = run(grafana, expand(query("panel", "CPU % against users, per scenario"), {"campaign": "demo"}))
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


def test_the_timings_table_gives_each_metrics_count_average_and_range(grafana):
    baseline = run_id("app-launch-baseline")
    rows = run(grafana, expand(query("panel", "Timings of the run"), {"run": baseline}))
    assert [metric for metric, *_ in rows] == [
        "Adobe Reader XI launch",
        "Excel launch",
        "Firefox launch",
        "Freemind launch",
        "PowerPoint launch",
    ]
    table = {metric: (subject, host, n, avg, unit) for metric, subject, host, n, avg, _, _, unit in rows}
    assert table["Freemind launch"] == ("", "CLIENT01", 5, pytest.approx(2043.6), "ms")
    assert table["Excel launch"][3] == pytest.approx(1187.2)
    connection.cursor().execute("RESET ROLE")
    expected = (
        Measurement.objects.filter(run_id=baseline)
        .values("metric")
        .order_by("metric")
        .annotate(n=Count("*"), avg=Avg("value"), low=Min("value"), high=Max("value"))
    )
    assert [(e["metric"], e["n"], pytest.approx(e["avg"]), e["low"], e["high"]) for e in expected] == [
        (metric, n, avg, low, high) for metric, _, _, n, avg, low, high, _ in rows
    ]


def test_the_runs_table_links_each_run_to_its_time_range(grafana):
    rows = run(grafana, expand(query("panel", "Runs of $campaign"), {"campaign": "demo"}))
    assert len(rows) == 51
    by_name = {name: (tool, steps, start, end) for _, name, tool, _, _, steps, start, end in rows}
    # started 2015-02-17 09:00:00.412, ended 10:59:45.435 UTC, in epoch milliseconds for the link
    assert by_name[RUN] == ("perfmon", 10, 1424163600412, 1424170785435)
    assert by_name["app-launch-baseline"][:2] == ("timing", 0)
    fsct = Run.objects.get(pk=run_id())
    assert by_name[RUN][2:] == (
        round(fsct.started_at.timestamp() * 1000),
        round(fsct.ended_at.timestamp() * 1000),
    )

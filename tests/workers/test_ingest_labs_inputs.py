"""Real labs' inputs through the real pipeline: a .blg is answered with its relog command (in the upload's
error and on the Uploads page); a Linux server's sysstat log and a Windows server's perfmon log in one run
give capacity, limits and traces side by side under the same resource names."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.db import connection

from tests.factories import make_user
from tests.ingest import ingest_path
from tests.paths import FIXTURES, real_fixture
from webapp.analysis.limits import campaign_limits, watched_series
from webapp.core.models import Campaign, Run
from webapp.core.runs import apply_steps

pytestmark = pytest.mark.django_db

BLG = "perfmon_blg/txrx_BasicPerfCounters.blg"
SYSSTAT = "sysstat/sysstat-tests_sadf-j_A.json"
PERFMON = FIXTURES / "perfmon_csv" / "rajitharul_perfmon_SriLanka_1.2MB.csv"
CPU = "\\Processor(_Total)\\% Processor Time"
LINUX, WINDOWS = "SYSSTAT.TEST", "DESKTOP-FUOCR3U"  # each file's own machine name, not the uploader's

RELOG_MESSAGE = (
    "this is a binary perfmon log (.blg), which Headroom cannot read; convert it to CSV on Windows with "
    "`relog DataCollector01.blg -f csv -o DataCollector01.csv` and upload DataCollector01.csv instead "
    "(headroom-agent upload does this itself on Windows)"
)


def test_a_binary_perfmon_log_fails_with_the_relog_command_also_on_the_uploads_page(campaign, client):
    upload = ingest_path(
        campaign, real_fixture(BLG), host="GEORGIS3", role="server", filename="DataCollector01.blg"
    )
    assert upload.status == "failed"
    assert upload.error["parser"] == "blg"
    assert upload.error["message"] == RELOG_MESSAGE
    assert upload.rows == 0
    client.force_login(make_user(campaign.project))
    page = client.get(f"/campaigns/{campaign.slug}/uploads/")
    assert page.status_code == 200
    assert f'<td class="error">{RELOG_MESSAGE}</td>' in page.content.decode()


def mixed_run(campaign: Campaign) -> Run:
    """The sysstat log of a Linux/Samba server and the perfmon log of a Windows server in run "mixed"."""
    linux = ingest_path(campaign, real_fixture(SYSSTAT), host="smb1", role="server", run="mixed")
    windows = ingest_path(campaign, PERFMON, host="win1", role="server", run="mixed")
    assert linux.status == "stored", linux.error
    assert windows.status == "stored", windows.error
    assert (linux.parser, windows.parser) == ("sysstat", "perfmon_csv")
    assert linux.run is not None and linux.run_id == windows.run_id
    return linux.run


def test_a_sysstat_log_alone_fills_the_trace_explorer(campaign, client):
    client.force_login(make_user(campaign.project))
    page = f"/campaigns/{campaign.slug}/traces/"
    assert 'id="send-hint-title"' in client.get(page).content.decode()  # nothing sent yet: what to send
    upload = ingest_path(campaign, real_fixture(SYSSTAT), host="smb1", role="server", run="r1")
    assert upload.status == "stored", upload.error
    assert 'id="send-hint-title"' not in client.get(page).content.decode()


def test_a_sysstat_log_and_a_perfmon_log_share_resource_names_and_limits(campaign):
    run = mixed_run(campaign)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT h.name, count(*) FROM counter_sample s JOIN timeseries_counterseries c ON c.id = s.series_id "
            "JOIN core_host h ON h.id = c.host_id WHERE c.object = 'Processor' AND c.instance = '_Total' "
            "AND c.counter = '% Processor Time' GROUP BY h.name ORDER BY h.name"
        )
        per_host = dict(cursor.fetchall())
    assert per_host[LINUX] == 5  # the sysstat file's five statistics
    text = PERFMON.read_text(encoding="utf-8").splitlines()[1:]
    cpu_cells = [row.split('","')[1] for row in text if row]
    assert per_host[WINDOWS] == len([cell for cell in cpu_cells if cell.strip()])
    watched = watched_series([run], campaign_limits(campaign))[run.pk]
    paths = {(w.host, w.path) for w in watched}
    assert (LINUX, CPU) in paths
    assert (LINUX, "\\Memory\\Available MBytes") in paths
    assert (LINUX, "\\PhysicalDisk(sda)\\Avg. Disk Queue Length") in paths
    assert (LINUX, "\\PhysicalDisk(sda)\\Avg. Disk sec/Transfer") in paths
    windows_paths = {path for host, path in paths if host != LINUX}
    assert CPU in windows_paths
    assert "\\Memory\\Available MBytes" in windows_paths


def utc(year: int, month: int, day: int, hour: int, minute: int, second: int) -> datetime:
    return datetime(year, month, day, hour, minute, second, tzinfo=UTC)


# The two files were recorded years apart, so the run's timeline holds each server's steps at 10 and
# 20 users where its own samples are: a step's window is its span trimmed by 10 % at each end.
STEPS = [
    # sysstat (UTC): window 13:20:15..13:20:55 holds 13:20:19, :29, :39, :49
    (10, utc(2019, 4, 18, 13, 20, 10), utc(2019, 4, 18, 13, 21, 0)),
    # window 13:54:06..13:54:54 holds 13:54:35
    (20, utc(2019, 4, 18, 13, 54, 0), utc(2019, 4, 18, 13, 55, 0)),
    # perfmon, Sri Lanka time (UTC+05:30): window 05:56:06..05:56:54 holds 05:56:18, :33, :48
    (10, utc(2023, 4, 28, 0, 26, 0), utc(2023, 4, 28, 0, 27, 0)),
    # window 05:57:18..05:59:42 holds 05:57:18.555 to 05:59:33.691 (ten samples, the whole minute 05:58)
    (20, utc(2023, 4, 28, 0, 27, 0), utc(2023, 4, 28, 0, 30, 0)),
]
# % Processor Time copied from the files: sysstat's 100 - %idle of cpu "all", perfmon's own column.
LINUX_10 = [17.12, 4.69, 28.32, 24.10]
LINUX_20 = [26.66]
WINDOWS_10 = [2.2570271835956945417, 4.8057357579141530834, 22.81170755850932963]
WINDOWS_20 = [
    7.4044213395628721841,
    6.8968577046481076565,
    12.138029441590770574,
    10.211699496942284071,
    29.574725285796542806,
    24.019690277931594835,
    10.66482104419360688,
    9.7352859743030872863,
    9.7504219466098440705,
    8.1105043815439366028,
]


def step_figures(values: list[float]) -> dict[str, object]:
    return {
        "avg": pytest.approx(sum(values) / len(values)),
        "max": pytest.approx(max(values)),
        "samples": len(values),
    }


def test_capacity_limits_and_traces_show_the_linux_and_the_windows_server_side_by_side(campaign, client):
    run = mixed_run(campaign)
    apply_steps(run, STEPS)
    client.force_login(make_user(campaign.project))

    response = client.get(f"/api/v1/campaigns/{campaign.slug}/capacity", {"counter": CPU})
    assert response.status_code == 200, response.content
    [scenario] = response.json()["scenarios"]
    assert scenario["run_ids"] == [run.pk]
    by_host = {h["host"]: h for h in scenario["per_host"]}
    assert sorted(by_host) == [WINDOWS, LINUX]
    for host, expected in ((LINUX, [LINUX_10, LINUX_20]), (WINDOWS, [WINDOWS_10, WINDOWS_20])):
        steps = by_host[host]["steps"]
        assert [s["users"] for s in steps] == [10, 20]
        assert [{k: s[k] for k in ("avg", "max", "samples")} for s in steps] == [
            step_figures(v) for v in expected
        ]
        assert (by_host[host]["bound"], by_host[host]["saturation_users"]) == ("not_reached", None)  # < 80 %
    # One limit table: each server's CPU and memory are their own curve, named by the server.
    limits = {(lim["host"], lim["resource"], lim["counter"]): lim for lim in scenario["limits"]}
    for host in (LINUX, WINDOWS):
        assert limits[(host, "cpu", CPU)]["bound"] == "not_reached"
        assert limits[(host, "memory", "\\Memory\\Available MBytes")]["bound"] == "not_reached"
    # What binds is the Linux server's disk sdb: its await in the 10-user window is 0.00 and 47.00 ms,
    # an average of 23.5 ms over the 20 ms limit already at the first step.
    sdb = "\\PhysicalDisk(sdb)\\Avg. Disk sec/Transfer"
    assert {k: scenario["binding"][k] for k in ("resource", "counter", "host", "bound", "users")} == {
        "resource": "disk_latency",
        "counter": sdb,
        "host": LINUX,
        "bound": "below_first_step",
        "users": 10.0,
    }

    traces = client.get(f"/api/v1/campaigns/{campaign.slug}/traces").json()
    assert [(r["id"], r["step_count"]) for r in traces["runs"]] == [(run.pk, 4)]
    assert [(s["users"], s["start"][:19]) for s in traces["steps"]] == [
        (users, start.strftime("%Y-%m-%dT%H:%M:%S")) for users, start, _ in STEPS
    ]
    series = client.get(f"/api/v1/runs/{run.pk}/series").json()["series"]
    cpu = {s["host"]: s for s in series if (s["object"], s["instance"], s["counter"]) == CPU_PARTS}
    assert {host: s["path"] for host, s in cpu.items()} == {
        LINUX: f"\\\\{LINUX}{CPU}",
        WINDOWS: f"\\\\{WINDOWS}{CPU}",
    }
    # Both servers' CPU traces over each server's 20-user step window: there, only that server's samples.
    ids = f"{cpu[LINUX]['id']},{cpu[WINDOWS]['id']}"
    for start, end, on, values in (
        ("2019-04-18T13:54:06Z", "2019-04-18T13:54:54Z", LINUX, LINUX_20),
        ("2023-04-28T00:27:18Z", "2023-04-28T00:29:42Z", WINDOWS, WINDOWS_20),
    ):
        query = {"series": ids, "start": start, "end": end, "source": "raw"}
        trace = client.get(f"/api/v1/runs/{run.pk}/trace", query)
        assert trace.status_code == 200, trace.content
        points = {s["host"]: [p["avg"] for p in s["points"]] for s in trace.json()["series"]}
        assert points == {on: pytest.approx(values), (WINDOWS if on == LINUX else LINUX): []}


CPU_PARTS = ("Processor", "_Total", "% Processor Time")

"""Deleting an upload takes the runs and scenarios it leaves empty with it; no empty runs are made
(issue 20 item 7).

A run is held by an upload placed in it, a result row or a load step: a run an agent
made through ``POST /api/v1/runs`` and gave steps stays when its uploads go.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from tests.factories import make_campaign, make_token, make_user
from tests.ingest import ingest_bytes, ingest_path
from tests.paths import FIXTURES
from webapp.core.models import Campaign, Run, RunStep, Scenario, Upload
from webapp.core.uploads import requeue
from webapp.dashboard.views.traces import traced_runs
from workers.tasks import ingest_upload

pytestmark = pytest.mark.django_db

PERFMON = FIXTURES / "perfmon_csv" / "narmadha_DataCollector01_LogicalDisk_IST.csv"
MT16 = FIXTURES / "robocopy" / "ripvannwinkler_robocopy_NFL_MT16.log"
DISKSPD = FIXTURES / "diskspd_txt" / "basilkisel_azure_A2_single.txt"


def on_machine(name: str) -> bytes:
    """The real log as if recorded on ``name`` (its counters belong to the machine they name)."""
    raw, machine = PERFMON.read_bytes(), b"\\\\IMPC3116\\"
    assert machine in raw
    return raw.replace(machine, f"\\\\{name}\\".encode())


JOB = """   ROBOCOPY     ::     Robust File Copy for Windows
  Started : Tuesday, March 3, 2026 {started}
   Source : D:\\data{n}\\
     Dest : \\\\fs01\\data{n}\\
  Options : *.* /S /E /R:1 /W:1
------------------------------------------------------------------------------
    Dirs :         1         1         0         0         0         0
   Files :        {n}0        {n}0         0         0         0         0
   Bytes :     {n}.0 m     {n}.0 m         0         0         0         0
   Times :   0:00:30   0:00:30                       0:00:00   0:00:00
   Ended : Tuesday, March 3, 2026 {ended}
"""
TWO_JOBS = (
    JOB.format(n=1, started="9:00:00 AM", ended="9:00:30 AM")
    + JOB.format(n=2, started="9:05:00 AM", ended="9:05:30 AM")
).encode()


def _delete(client, campaign: Campaign, upload: Upload) -> None:
    response = client.post(f"/campaigns/{campaign.slug}/uploads/{upload.pk}/delete")
    assert response.status_code == 302
    assert not Upload.objects.filter(pk=upload.pk).exists()


def _overview_runs(client, campaign: Campaign) -> tuple[list[str], list[tuple[str, str]]]:
    """Run names and (scenario, run count) rows of the campaign overview page."""
    page = client.get(f"/campaigns/{campaign.slug}/").content.decode()
    scenarios = re.findall(r'<tr><td>([^<]*)</td><td class="num"[^>]*>(\d+)</td></tr>', page)
    return sorted(Run.objects.filter(campaign=campaign).values_list("name", flat=True)), scenarios


def _reparse(upload: Upload) -> Upload:
    requeue(upload)
    ingest_upload.apply(args=(upload.pk,))
    upload.refresh_from_db()
    assert upload.status == "stored", upload.error
    return upload


def test_a_robocopy_log_makes_one_run_spanning_the_copy():
    campaign = make_campaign()
    upload = ingest_path(
        campaign, MT16, scenario={"technique": "robocopy"}, host="COPY01", timezone="America/Chicago"
    )
    assert upload.status == "stored", upload.error
    (run,) = Run.objects.filter(campaign=campaign)  # not also the scenario's empty default run
    assert run.tool == "robocopy" and upload.run_id == run.pk
    assert (run.started_at, run.ended_at) == (
        datetime(2026, 7, 24, 16, 8, 15, tzinfo=UTC),
        datetime(2026, 7, 24, 16, 9, 6, tzinfo=UTC),
    )
    assert [h.name for h in run.hosts.all()] == ["COPY01"]  # the copy's host, for its resource use
    assert _reparse(upload).run_id == run.pk
    assert list(Run.objects.filter(campaign=campaign)) == [run]


def test_a_diskspd_file_makes_one_run():
    campaign = make_campaign()
    upload = ingest_path(
        campaign, DISKSPD, scenario={"disk_type": "azure"}, extra={"started_at": "2015-03-02T09:00:00Z"}
    )
    assert upload.status == "stored", upload.error
    (run,) = Run.objects.filter(campaign=campaign)
    assert run.tool == "diskspd" and run.started_at is not None and upload.run_id == run.pk


def test_a_log_of_two_jobs_makes_two_runs_and_finds_them_again():
    campaign = make_campaign()
    upload = ingest_bytes(
        campaign, TWO_JOBS, filename="two.log", scenario={"technique": "robocopy"}, timezone="UTC"
    )
    assert upload.status == "stored", upload.error
    runs = list(Run.objects.filter(campaign=campaign).order_by("started_at"))
    assert [(r.started_at.strftime("%H:%M:%S"), r.ended_at.strftime("%H:%M:%S")) for r in runs] == [
        ("09:00:00", "09:00:30"),
        ("09:05:00", "09:05:30"),
    ]
    assert upload.run_id is None  # two executions: the upload's results are in both
    _reparse(upload)
    assert list(Run.objects.filter(campaign=campaign).order_by("started_at")) == runs


def test_deleting_an_upload_drops_its_run_and_scenario_from_every_view(client):
    campaign = make_campaign()
    kept = ingest_path(campaign, PERFMON, host="FS01", scenario={"av": "on"}, filename="on.csv")
    gone = ingest_bytes(campaign, on_machine("FS02"), host="FS02", scenario={"av": "off"}, filename="off.csv")
    copy = ingest_path(campaign, MT16, scenario={"av": "off"}, timezone="UTC")
    assert {kept.status, gone.status, copy.status} == {"stored"}
    client.force_login(make_user(campaign.project, role="owner"))
    assert _overview_runs(client, campaign)[1] == [("av=on", "1"), ("av=off", "2")]
    assert len(traced_runs(campaign)) == 2  # both perfmon runs: IMPC3116 and FS02 recorded counters

    _delete(client, campaign, gone)
    names, scenarios = _overview_runs(client, campaign)
    assert scenarios == [("av=on", "1"), ("av=off", "1")]  # the robocopy run is left in av=off
    assert [r.pk for r in traced_runs(campaign)] == [kept.run_id]  # not offered with av=on's counters
    _delete(client, campaign, copy)
    names, scenarios = _overview_runs(client, campaign)
    assert (names, scenarios) == (["av=on"], [("av=on", "1")])
    assert list(Scenario.objects.filter(campaign=campaign).values_list("pk", flat=True)) == [kept.scenario_id]


def test_a_run_shared_by_two_uploads_stays_until_both_are_gone(client):
    campaign = make_campaign()
    first = ingest_path(campaign, PERFMON, host="FS01", filename="a.csv", run="capacity")
    second = ingest_bytes(campaign, on_machine("FS02"), host="FS02", filename="b.csv", run="capacity")
    assert first.run_id == second.run_id
    client.force_login(make_user(campaign.project, role="owner"))
    _delete(client, campaign, first)
    assert Run.objects.filter(campaign=campaign).count() == 1
    _delete(client, campaign, second)
    assert not Run.objects.filter(campaign=campaign).exists()
    assert not Scenario.objects.filter(campaign=campaign).exists()


def test_a_run_given_steps_through_the_api_stays_when_its_upload_goes(client):
    campaign = make_campaign()
    _, token = make_token(campaign.project)
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    made = client.post(
        "/api/v1/runs", {"campaign": campaign.slug, "name": "live"}, content_type="application/json", **auth
    ).json()
    steps = [{"users": 100, "started_at": "2015-06-01T10:00:00Z", "ended_at": "2015-06-01T10:10:00Z"}]
    assert (
        client.post(
            f"/api/v1/runs/{made['id']}/steps", steps, content_type="application/json", **auth
        ).status_code
        == 200
    )
    upload = ingest_path(campaign, PERFMON, host="FS01", run="live")
    assert upload.run_id == made["id"]
    client.force_login(make_user(campaign.project, role="owner"))
    _delete(client, campaign, upload)
    assert RunStep.objects.filter(run_id=made["id"]).count() == 1
    assert Run.objects.filter(campaign=campaign).count() == 1

"""The demo campaign through the real ingest path, for dashboard and browser tests."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from pathlib import Path

from django.core.management import call_command

from tests.conftest import wait_for
from tests.factories import make_campaign
from tests.ingest import ingest_bytes
from tests.webapp.analysis.studies import CPU, add_run
from webapp.core.models import Campaign, Note, Run, Scenario, Series, Upload
from webapp.timeseries.models import Measurement
from workers.tasks import ingest_upload, refresh_rollups


def load_demo(kinds: tuple[str, ...] = ("perfmon_csv", "timings"), rollups: bool = True) -> Campaign:
    """``load_demo`` then ingest its uploads of ``kinds`` in this process; optionally refresh rollups."""
    call_command("load_demo", "--campaign", "demo", stdout=io.StringIO())
    for upload in Upload.objects.filter(kind__in=kinds):
        ingest_upload.apply(args=(upload.pk,))
    # In transactional tests a live worker may have claimed some uploads first.
    wait_for(
        lambda: not Upload.objects.filter(kind__in=kinds).exclude(status__in=["stored", "failed"]).exists()
    )
    stored = set(Upload.objects.filter(kind__in=kinds).values_list("status", flat=True))
    assert stored == {"stored"}, stored
    if rollups:
        refresh_rollups.apply()
    return Campaign.objects.get(slug="demo")


def load_logon_demo() -> Campaign:
    """``load_demo --campaign demo-logon`` ("Logon load 2015", webapp/demo/logon_load.py), every upload ingested
    in this process, rollups refreshed."""
    call_command("load_demo", "--campaign", "demo-logon", stdout=io.StringIO())
    for upload in Upload.objects.filter(campaign__slug="demo-logon"):
        ingest_upload.apply(args=(upload.pk,))
    wait_for(
        lambda: (
            not Upload.objects.filter(campaign__slug="demo-logon")
            .exclude(status__in=["stored", "failed"])
            .exists()
        )
    )
    stored = set(Upload.objects.filter(campaign__slug="demo-logon").values_list("status", flat=True))
    assert stored == {"stored"}, stored
    refresh_rollups.apply()
    return Campaign.objects.get(slug="demo-logon")


def add_block_size_runs(campaign: Campaign) -> dict[tuple[str, str], float]:
    """fio-like results at three block sizes for two scenarios; returns (disk, block) -> read MB/s."""
    upload = Upload.objects.create(
        campaign=campaign, sha256="b" * 64, size=0, storage_key="test", status="stored", parser="fio_json"
    )
    expected: dict[tuple[str, str], float] = {}
    rows = []
    for disk, speed in (("HDD", 1.0), ("SSD", 4.0)):
        scenario = Scenario.for_dims(campaign, {"study": "block-size", "disk_type": disk})
        for block in ("4096", "65536", "1048576"):
            run = Run.objects.create(
                campaign=campaign,
                scenario=scenario,
                name=f"fio {disk} {block}",
                tool="fio",
                attributes={"block_size": block},
            )
            mbps = speed * int(block) / 4096 * 10
            expected[(disk, block)] = mbps
            for metric, unit, value in (
                ("read.mbps", "MB/s", mbps),
                ("read.iops", "IO/s", mbps * 1e6 / int(block)),
                ("read.clat.mean_ms", "ms", 0.5 * int(block) / 4096 / speed),
                ("read.clat.p99_ms", "ms", 2.0 * int(block) / 4096 / speed),
            ):
                rows.append(
                    Measurement(
                        time=datetime(2015, 4, 1, tzinfo=UTC),
                        run=run,
                        metric=metric,
                        subject="job1",
                        value=value,
                        unit=unit,
                        upload=upload,
                    )
                )
    Measurement.objects.bulk_create(rows)
    return expected


def add_demo_series(campaign: Campaign) -> Campaign:
    """The demo campaign as "2015-04" of series ``demo-series``, followed by "2015-05" (slug ``demo-next``): two
    of its load-stepped scenarios again (CPU rising 0.15 % per user) and its first app launch timed 10 % slower.
    A note on each campaign. Returns the second campaign."""
    series, _ = Series.objects.get_or_create(
        slug="demo-series", defaults={"project": campaign.project, "name": "Folder redirection, monthly"}
    )
    Campaign.objects.filter(pk=campaign.pk).update(series=series, series_key="2015-04")
    later = make_campaign(project=campaign.project, slug="demo-next")
    later.name, later.series, later.series_key = "Folder Redirection 2015, May", series, "2015-05"
    later.save()
    stepped = Scenario.objects.filter(campaign=campaign, runs__steps__isnull=False).distinct().order_by("pk")
    for index, scenario in enumerate(stepped[:2]):
        for spread in (0.99, 1.01):
            levels = {CPU: [u * 0.15 * spread for u in (100, 200, 300, 400, 500, 600)]}
            add_run(
                later,
                scenario.dims,
                levels,
                (100, 200, 300, 400, 500, 600),
                host="FS-NEXT",
                day=2 * index + (spread > 1),
            )
    launch = (
        Measurement.objects.filter(run__campaign=campaign, metric__endswith=" launch")
        .select_related("run__scenario")
        .first()
    )
    assert launch is not None
    values = Measurement.objects.filter(run=launch.run, metric=launch.metric).values_list("value", flat=True)
    rows = [
        {
            "name": launch.metric,
            "started_at": f"2015-05-04T10:0{i}:00Z",
            "duration_ms": v * 1.1,
            "repetition": i + 1,
        }
        for i, v in enumerate(values)
    ]
    ingest_bytes(
        later, json.dumps(rows).encode(), scenario=launch.run.scenario.dims, host="CLIENT01", role="client"
    )
    Note.objects.create(project=campaign.project, campaign=later, text="AV engine 1.2.3 installed on FS-NEXT")
    Note.objects.create(
        project=campaign.project,
        campaign=campaign,
        scenario=stepped[0],
        target="scenario",
        text="baseline build",
    )
    return later


FSCT_FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "fsct"
# (fixture, AV setting) of the FSCT result files add_fsct_results ingests: one overloads at 900 users, one never.
FSCT_FILES = (("fsct_overload_top_tabs.txt", "on"), ("fsct_clean_100-1000.txt", "off"))


def add_fsct_results(campaign: Campaign) -> list[Scenario]:
    """The FSCT fixture files as the FSCT controller's results of two scenarios (study ``fsct-results``):
    AV on overloads at 900 users (800 the last step without), AV off never does."""
    scenarios = []
    for name, av in FSCT_FILES:
        dims = {"study": "fsct-results", "av": av}
        upload = ingest_bytes(
            campaign,
            (FSCT_FIXTURES / name).read_bytes(),
            kind="fsct",
            scenario=dims,
            host="FSCT-CTRL",
            filename=name,
            run=f"fsct-results-av-{av}",
        )
        assert upload.status == "stored", upload.error
        scenarios.append(Scenario.for_dims(campaign, dims))
    return scenarios

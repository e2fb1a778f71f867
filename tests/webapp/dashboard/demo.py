"""The demo campaign through the real ingest path, for dashboard and browser tests."""

from __future__ import annotations

import io
from datetime import UTC, datetime

from django.core.management import call_command

from tests.conftest import wait_for
from webapp.core.models import Campaign, Run, Scenario, Upload
from webapp.timeseries.models import Measurement
from workers.tasks import ingest_upload, refresh_rollups


def load_demo(kinds: tuple[str, ...] = ("perfmon_csv", "timings"), rollups: bool = True) -> Campaign:
    """``load_demo`` then ingest its uploads of ``kinds`` in this process; optionally refresh rollups."""
    call_command("load_demo", stdout=io.StringIO())
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

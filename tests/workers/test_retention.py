"""Retention: raw samples of uploads stored too long ago expire, the same on both modes, and
every view that reads samples says which uploads lost them and since when."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from tests.factories import make_user
from tests.ingest import ingest_bytes, ingest_path, stored_rows
from tests.paths import FIXTURES
from webapp.core.models import Upload
from webapp.core.uploads import requeue
from workers import retention
from workers.tasks import expire_raw_samples, ingest_upload, refresh_rollups

pytestmark = pytest.mark.django_db(transaction=True)

NARMADHA = FIXTURES / "perfmon_csv" / "narmadha_DataCollector01_LogicalDisk_IST.csv"
SRILANKA = FIXTURES / "perfmon_csv" / "rajitharul_perfmon_SriLanka_1.2MB.csv"
TIMINGS = b"name,started_at,duration_ms\nlogon,2015-03-02T09:00:00Z,1234.5\nlogon,2015-03-02T09:05:00Z,1500\n"


def rollup_rows(upload_id: int) -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM counter_rollup_1m WHERE series_id IN "
            "(SELECT s.id FROM timeseries_counterseries s JOIN core_run_hosts rh ON rh.host_id = s.host_id"
            " JOIN core_upload u ON u.run_id = rh.run_id WHERE u.id = %s)",
            [upload_id],
        )
        return int(cursor.fetchone()[0])


def test_samples_of_old_uploads_expire_and_the_views_say_so(campaign, settings, client):
    settings.TIMESCALE_RETENTION_DAYS = 30
    old = ingest_path(campaign, NARMADHA, host="FS-OLD", role="server", run="old-run", scenario={"av": "on"})
    new = ingest_path(campaign, SRILANKA, host="FS-NEW", role="server", run="new-run", scenario={"av": "off"})
    results = ingest_bytes(
        campaign, TIMINGS, filename="t.csv", host="FS-OLD", run="old-run", scenario={"av": "on"}
    )
    assert (old.status, new.status, results.status) == ("stored", "stored", "stored")
    old_samples, new_samples = stored_rows(old.pk), stored_rows(new.pk)
    assert old_samples == old.rows > 0 and new_samples == new.rows > 0
    refresh_rollups.apply()
    assert rollup_rows(old.pk) > 0
    forty_days_ago = timezone.now() - timedelta(days=40)
    Upload.objects.filter(pk__in=[old.pk, results.pk]).update(finished_at=forty_days_ago)

    assert expire_raw_samples.apply().get() == 2  # the sample upload and the (sample-less) results upload
    old.refresh_from_db()
    new.refresh_from_db()
    results.refresh_from_db()
    assert old.status == "stored" and old.raw_expired_at is not None
    assert (old.rows, stored_rows(old.pk)) == (0, 0)
    assert (new.raw_expired_at, new.rows, stored_rows(new.pk)) == (None, new_samples, new_samples)
    assert (results.rows, stored_rows(results.pk)) == (2, 2)  # results are kept
    refresh_rollups.apply()
    assert rollup_rows(old.pk) == 0  # rollups follow the samples, on both modes
    assert rollup_rows(new.pk) > 0
    assert retention.due() == []  # nothing twice

    viewer = make_user(campaign.project, role="viewer")
    client.force_login(viewer)
    body = client.get(f"/api/v1/campaigns/{campaign.slug}/capacity").json()
    expired = body["data"]["raw_samples_expired"]
    assert sorted(e["upload"] for e in expired) == sorted([old.pk, results.pk])
    assert "expired from" in body["data"]["note"] and "HEADROOM_RETENTION_DAYS=30" in body["data"]["note"]
    assert "old-run" in body["data"]["note"]

    series = client.get(f"/api/v1/runs/{old.run_id}/series").json()
    assert series["series"] == [] and old.pk in [e["upload"] for e in series["data"]["raw_samples_expired"]]
    untouched = client.get(f"/api/v1/runs/{new.run_id}/series").json()
    assert untouched["series"] and untouched["data"]["note"] == ""
    status = client.get(f"/api/v1/uploads/{old.pk}").json()
    assert status["status"] == "stored" and status["rows"] == 0 and status["raw_expired_at"]

    page = client.get(f"/campaigns/{campaign.slug}/capacity/").content.decode()
    assert "expired from" in page
    uploads = client.get(f"/campaigns/{campaign.slug}/uploads/").content.decode()
    assert "samples expired" in uploads

    # The raw bytes are kept: a re-parse restores the samples and restarts the clock.
    requeue(old)
    ingest_upload.apply(args=(old.pk,))
    restored = Upload.objects.get(pk=old.pk)
    assert restored.raw_expired_at is None
    assert (restored.status, restored.rows, stored_rows(old.pk)) == ("stored", old_samples, old_samples)


def test_retention_off_expires_nothing(campaign, settings):
    settings.TIMESCALE_RETENTION_DAYS = 0
    old = ingest_path(campaign, NARMADHA, host="FS-OLD", role="server", run="r")
    Upload.objects.filter(pk=old.pk).update(finished_at=timezone.now() - timedelta(days=4000))
    assert expire_raw_samples.apply().get() == 0
    assert stored_rows(old.pk) == old.rows > 0

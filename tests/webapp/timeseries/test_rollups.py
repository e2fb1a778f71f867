"""The one-minute rollups give exactly the numbers a raw aggregate gives."""

from __future__ import annotations

import pytest
from django.db import connection, transaction

from tests.ingest import ingest_path, stored_rows
from tests.modes import expected_mode
from tests.paths import FIXTURES
from webapp.analysis.windows import Window, window_stats
from webapp.timeseries import backend
from workers.tasks import refresh_rollups

pytestmark = pytest.mark.django_db

RAW = """
    SELECT series_id, date_bin(INTERVAL '1 minute', time, TIMESTAMPTZ '2000-01-03 00:00:00+00') AS bucket,
           count(*), sum(value), min(value), max(value)
    FROM counter_sample GROUP BY 1, 2 ORDER BY 1, 2
"""
# Transactional tests flush Django's tables, not the rollup (unmanaged): look at this test's series only.
THIS_TEST = "WHERE series_id IN (SELECT id FROM timeseries_counterseries)"
ROLLUP = (
    f"SELECT series_id, bucket, n, total, minimum, maximum FROM counter_rollup_1m {THIS_TEST} ORDER BY 1, 2"
)


def fetch(sql: str) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return [tuple(round(v, 6) if isinstance(v, float) else v for v in row) for row in cursor.fetchall()]


@pytest.mark.django_db(transaction=True)
def test_rollups_equal_the_raw_aggregate_after_a_refresh(campaign):
    upload = ingest_path(
        campaign,
        FIXTURES / "perfmon_csv" / "rajitharul_perfmon_SriLanka_1.2MB.csv",
        host="SRV1",
        role="server",
    )
    assert upload.status == "stored", upload.error
    raw = fetch(RAW)
    assert len(raw) > 100
    assert fetch("SELECT count(*) FROM rollup_dirty") == [(1,)]
    assert fetch(ROLLUP) == []  # not yet refreshed: the worker task keeps the table, in both modes
    refresh_rollups.apply()
    assert fetch("SELECT count(*) FROM rollup_dirty") == [(0,)]
    assert fetch(ROLLUP) == raw


def test_a_refresh_asked_for_inside_a_transaction_leaves_it_usable(campaign):
    upload = ingest_path(
        campaign, FIXTURES / "perfmon_csv" / "narmadha_DataCollector01_LogicalDisk_IST.csv", host="SRV3"
    )
    with transaction.atomic():
        refresh_rollups.apply()
        assert fetch("SELECT count(*) FROM counter_sample") == [(stored_rows(upload.pk),)]
    assert fetch("SELECT count(*) FROM rollup_dirty") == [(0,)]  # the table is recomputed in place
    # Readers stay exact: pending minutes are read from the raw samples.
    series_id, lo, hi, n, total = fetch(
        "SELECT series_id, min(time), max(time) + INTERVAL '1 second', count(*), sum(value) "
        "FROM counter_sample GROUP BY series_id ORDER BY count(*) DESC, series_id LIMIT 1"
    )[0]
    stats = window_stats([Window(key=1, series_id=series_id, lo=lo, hi=hi)])[1]
    assert (stats.samples, round(stats.total, 6)) == (n, total)


@pytest.mark.django_db(transaction=True)
def test_rollups_follow_a_reparse_that_replaces_rows(campaign):
    path = FIXTURES / "perfmon_csv" / "narmadha_DataCollector01_LogicalDisk_IST.csv"
    upload = ingest_path(campaign, path, host="SRV2", role="server")
    refresh_rollups.apply()
    before = fetch(ROLLUP)
    assert len(before) > 10
    from webapp.core.uploads import requeue
    from workers.tasks import ingest_upload

    requeue(upload)
    ingest_upload.apply(args=(upload.pk,))
    refresh_rollups.apply()
    assert fetch(ROLLUP) == before == fetch(RAW)


def test_buckets_line_up_with_time_bucket_origin():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT date_bin(INTERVAL '15 minutes', TIMESTAMPTZ '2015-06-01 10:07:00+00', "
            "TIMESTAMPTZ '2000-01-03 00:00:00+00')"
        )
        (bucket,) = cursor.fetchone()
    assert bucket.isoformat() == "2015-06-01T10:00:00+00:00"
    function = "time_bucket(" if expected_mode() == "timescaledb" else "date_bin("
    assert backend.bucket_expression("%s", "time").startswith(function)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {backend.bucket_expression('INTERVAL %s', '%s::timestamptz')}",
            ["15 minutes", "2015-06-01 10:07:00+00"],
        )
        assert cursor.fetchone()[0].isoformat() == "2015-06-01T10:00:00+00:00"

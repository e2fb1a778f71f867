"""Migrations match the models, and the reparse command replaces rows from the raw bytes."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.db import connection

from tests.ingest import ingest_path
from tests.modes import expected_mode
from tests.paths import FIXTURES
from webapp.core.models import Upload
from webapp.timeseries import backend


@pytest.mark.django_db
def test_makemigrations_finds_nothing_to_do():
    out = io.StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)
    assert "No changes detected" in out.getvalue()


def _one(sql: str) -> object:
    with connection.cursor() as cursor:
        cursor.execute(sql)
        row = cursor.fetchone()
    return row[0] if row else None


@pytest.mark.django_db
def test_migrations_built_the_mode_the_setting_and_server_ask_for():
    mode = expected_mode()
    assert backend.mode() == mode
    # The rollup is an ordinary table the worker keeps current in both modes (migration 0009),
    # and counter_sample a view over the rows and their samples.
    assert _one("SELECT relkind FROM pg_class WHERE relname = 'counter_rollup_1m'") == "r"
    assert _one("SELECT relkind FROM pg_class WHERE relname = 'counter_sample'") == "v"
    # Its key's index carries the figures, so a window's minutes are read from the index alone.
    assert _one(
        "SELECT pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = 'counter_rollup_1m'::regclass"
    ) == (
        "CREATE UNIQUE INDEX counter_rollup_1m_pkey ON public.counter_rollup_1m USING btree "
        "(series_id, bucket) INCLUDE (n, total, minimum, maximum)"
    )
    if mode == "postgresql":
        assert _one("SELECT count(*) FROM pg_extension WHERE extname = 'timescaledb'") == 0
        return
    hypertables = _one(
        "SELECT string_agg(hypertable_name, ',' ORDER BY hypertable_name) "
        "FROM timescaledb_information.hypertables WHERE hypertable_schema = 'public'"
    )
    assert hypertables == "measurement,sample_point"
    assert _one("SELECT count(*) FROM timescaledb_information.continuous_aggregates") == 0
    jobs = str(
        _one(
            "SELECT string_agg(proc_name || ':' || hypertable_name, ',' ORDER BY proc_name) "
            "FROM timescaledb_information.jobs WHERE proc_name LIKE 'policy_%'"
        )
    )
    assert jobs == "policy_compression:sample_point"
    settings = _one(
        "SELECT string_agg(attname || ':' || coalesce(segmentby_column_index::text, '-') || ':' "
        "|| coalesce(orderby_column_index::text, '-'), ',' ORDER BY attname) "
        "FROM timescaledb_information.compression_settings WHERE hypertable_name = 'sample_point'"
    )
    assert settings == "day:-:3,row_id:-:2,series_id:-:1"  # no segments, ordered by series then row
    sparse = str(
        _one(
            "SELECT index FROM _timescaledb_catalog.compression_settings WHERE relid = 'sample_point'::regclass"
        )
    )
    assert "bloom" not in sparse and '"minmax", "column": "series_id"' in sparse
    # The rows' times are points of series 0: a batch's value range lets a time range skip it.
    assert '"minmax", "column": "value"' in sparse
    interval = _one(
        "SELECT time_interval FROM timescaledb_information.dimensions WHERE hypertable_name = 'sample_point'"
    )
    assert str(interval) == "7 days, 0:00:00"


@pytest.mark.django_db
def test_the_reparse_command_queues_uploads_again(campaign):
    upload = ingest_path(
        campaign, FIXTURES / "perfmon_csv" / "narmadha_DataCollector01_LogicalDisk_IST.csv", host="FS01"
    )
    out = io.StringIO()
    call_command("reparse", "--campaign", campaign.slug, stdout=out)
    assert "queued 1 upload(s)" in out.getvalue()
    assert Upload.objects.get(pk=upload.pk).status in ("received", "queued")
    with pytest.raises(Exception, match="name upload ids or --campaign"):
        call_command("reparse")

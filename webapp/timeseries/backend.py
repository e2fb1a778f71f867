"""The one switch between TimescaleDB and plain PostgreSQL.

Everything that differs between the two lives here, and nowhere else:

* ``install`` (called by migration 0002) creates the extension when it is
  available, makes ``counter_sample`` and ``measurement`` hypertables, creates
  the one-minute rollup ``counter_rollup_1m`` as a continuous aggregate with a
  refresh policy, and adds compression and retention policies from settings.
  Without the extension the rollup is an ordinary table with the same columns.
* ``refresh_rollups`` brings the rollup up to date for a time range: a
  ``refresh_continuous_aggregate`` call on TimescaleDB, a delete-and-recompute
  under an advisory lock on plain PostgreSQL.
* ``bucket_expression`` gives ``time_bucket`` or ``date_bin`` with the same
  origin, so both modes put a timestamp into the same bucket.

The mode is read from the database itself (is the rollup a view or a table?),
so code never guesses from settings what migrations actually built.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Literal

from django.conf import settings
from django.db import connection, transaction
from django.db.backends.base.schema import BaseDatabaseSchemaEditor

Mode = Literal["timescaledb", "postgresql"]

ROLLUP = "counter_rollup_1m"
ROLLUP_WIDTH = timedelta(minutes=1)
# time_bucket's default origin for sub-month widths is Monday 2000-01-03; we
# pass it explicitly to both functions so buckets line up exactly.
ORIGIN = "2000-01-03 00:00:00+00"
_ADVISORY_LOCK = 0x48524F4C  # "HROL": serialises plain-mode rollup refreshes


class TimescaleUnavailable(RuntimeError):
    pass


def timescale_available(schema_editor: BaseDatabaseSchemaEditor) -> bool:
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'timescaledb'")
        return cursor.fetchone() is not None


def mode() -> Mode:
    """What the migrations built: a continuous aggregate means TimescaleDB."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT relkind FROM pg_class WHERE relname = %s", [ROLLUP])
        row = cursor.fetchone()
    return "timescaledb" if row is not None and row[0] == "v" else "postgresql"


def bucket_expression(width_sql: str, column: str) -> str:
    """SQL that buckets ``column`` by the interval ``width_sql`` (a placeholder or literal)."""
    if mode() == "timescaledb":
        return f"time_bucket({width_sql}, {column}, TIMESTAMPTZ '{ORIGIN}')"
    return f"date_bin({width_sql}, {column}, TIMESTAMPTZ '{ORIGIN}')"


# --- Installation (migration 0002) ---------------------------------------------

_ROLLUP_SELECT = """
    SELECT series_id, {bucket} AS bucket, count(*) AS n, sum(value) AS total,
           min(value) AS minimum, max(value) AS maximum
    FROM counter_sample
"""


def install(schema_editor: BaseDatabaseSchemaEditor) -> Mode:
    wanted = settings.TIMESCALE
    available = timescale_available(schema_editor)
    if wanted == "on" and not available:
        raise TimescaleUnavailable(
            "HEADROOM_TIMESCALE=on but the timescaledb extension is not available on this server"
        )
    if wanted == "off" or not available:
        _install_plain(schema_editor)
        return "postgresql"
    _install_timescale(schema_editor)
    return "timescaledb"


def _install_plain(schema_editor: BaseDatabaseSchemaEditor) -> None:
    schema_editor.execute(
        f"""
        CREATE TABLE {ROLLUP} (
            series_id bigint NOT NULL,
            bucket timestamptz NOT NULL,
            n bigint NOT NULL,
            total double precision NOT NULL,
            minimum double precision NOT NULL,
            maximum double precision NOT NULL,
            PRIMARY KEY (series_id, bucket)
        )
        """
    )


def _install_timescale(schema_editor: BaseDatabaseSchemaEditor) -> None:
    chunk = f"INTERVAL '{int(settings.TIMESCALE_CHUNK_INTERVAL_DAYS)} days'"
    run = schema_editor.execute
    run("CREATE EXTENSION IF NOT EXISTS timescaledb")
    run(f"SELECT create_hypertable('counter_sample', 'time', chunk_time_interval => {chunk})")
    run(f"SELECT create_hypertable('measurement', 'time', chunk_time_interval => {chunk})")
    # Real-time aggregation (materialized_only = false) makes the view return
    # exactly what a raw aggregate would, even before a refresh has run.
    bucket = f"time_bucket(INTERVAL '1 minute', time, TIMESTAMPTZ '{ORIGIN}')"
    run(
        f"CREATE MATERIALIZED VIEW {ROLLUP} "
        "WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS "
        + _ROLLUP_SELECT.format(bucket=bucket)
        + " GROUP BY series_id, bucket WITH NO DATA"
    )
    # Test data arrives with old timestamps, so the policy window is open-ended.
    run(
        f"SELECT add_continuous_aggregate_policy('{ROLLUP}', start_offset => NULL, "
        "end_offset => INTERVAL '1 minute', schedule_interval => INTERVAL '5 minutes')"
    )
    compress_after = int(settings.TIMESCALE_COMPRESS_AFTER_DAYS)
    if compress_after:
        run(
            "ALTER TABLE counter_sample SET (timescaledb.compress, "
            "timescaledb.compress_segmentby = 'series_id', timescaledb.compress_orderby = 'time')"
        )
        run(
            f"SELECT add_compression_policy('counter_sample', compress_after => INTERVAL '{compress_after} days')"
        )
    retention = int(settings.TIMESCALE_RETENTION_DAYS)
    if retention:
        for table in ("counter_sample", "measurement"):
            run(f"SELECT add_retention_policy('{table}', drop_after => INTERVAL '{retention} days')")


def uninstall(schema_editor: BaseDatabaseSchemaEditor) -> None:
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT relkind FROM pg_class WHERE relname = %s", [ROLLUP])
        row = cursor.fetchone()
    if row is None:
        return
    schema_editor.execute(f"DROP {'MATERIALIZED VIEW' if row[0] == 'v' else 'TABLE'} {ROLLUP}")


# --- Keeping rollups current ------------------------------------------------------


def bucket_floor(moment: datetime) -> datetime:
    return moment.replace(second=0, microsecond=0)


def refresh_rollups(start: datetime, end: datetime) -> None:
    """Make ``counter_rollup_1m`` exact for every bucket touching ``[start, end]``."""
    lo = bucket_floor(start)
    hi = bucket_floor(end) + ROLLUP_WIDTH
    if mode() == "timescaledb":
        # Must run outside a transaction block (TimescaleDB requirement).
        with connection.cursor() as cursor:
            cursor.execute(f"CALL refresh_continuous_aggregate('{ROLLUP}', %s, %s)", [lo, hi])
        return
    bucket = f"date_bin(INTERVAL '1 minute', time, TIMESTAMPTZ '{ORIGIN}')"
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_ADVISORY_LOCK])
        cursor.execute(f"DELETE FROM {ROLLUP} WHERE bucket >= %s AND bucket < %s", [lo, hi])
        cursor.execute(
            f"INSERT INTO {ROLLUP} (series_id, bucket, n, total, minimum, maximum) "
            + _ROLLUP_SELECT.format(bucket=bucket)
            + " WHERE time >= %s AND time < %s GROUP BY series_id, bucket",
            [lo, hi],
        )

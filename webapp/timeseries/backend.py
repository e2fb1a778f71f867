"""The one switch between TimescaleDB and plain PostgreSQL.

Everything that differs between the two lives here, and nowhere else:

* ``install`` (called by migration 0002) creates the extension when it is
  installed *and* preloaded (``auto`` falls back to plain tables otherwise and
  ``/healthz`` says why; ``on`` refuses with the reason), makes ``counter_sample`` and ``measurement`` hypertables, creates
  the one-minute rollup ``counter_rollup_1m`` as a continuous aggregate with a
  refresh policy, and adds a compression policy from settings.
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

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from django.conf import settings
from django.db import connection, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.base.schema import BaseDatabaseSchemaEditor

Mode = Literal["timescaledb", "postgresql"]

log = logging.getLogger(__name__)

ROLLUP = "counter_rollup_1m"
ROLLUP_WIDTH = timedelta(minutes=1)
# time_bucket's default origin for sub-month widths is Monday 2000-01-03; we
# pass it explicitly to both functions so buckets line up exactly.
ORIGIN = "2000-01-03 00:00:00+00"
_ADVISORY_LOCK = 0x48524F4C  # "HROL": serialises plain-mode rollup refreshes


class TimescaleUnavailable(RuntimeError):
    pass


@dataclass(frozen=True)
class ServerSupport:
    """What the server offers: the extension's files, and whether they are preloaded."""

    installed: bool  # in pg_available_extensions
    preloaded: bool  # in shared_preload_libraries (TimescaleDB refuses CREATE EXTENSION otherwise)

    @property
    def usable(self) -> bool:
        return self.installed and self.preloaded

    def problem(self) -> str:
        """Why TimescaleDB cannot be used here ('' when it can)."""
        if not self.installed:
            return "the timescaledb extension is not installed on this PostgreSQL server"
        if not self.preloaded:
            return (
                "the timescaledb extension is installed but not preloaded: add "
                "shared_preload_libraries = 'timescaledb' to postgresql.conf and restart the server"
            )
        return ""


_SUPPORT_SQL = """
    SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'timescaledb'),
           'timescaledb' = ANY (string_to_array(replace(current_setting('shared_preload_libraries'), ' ', ''), ','))
"""


def server_support(conn: BaseDatabaseWrapper | None = None) -> ServerSupport:
    with (conn or connection).cursor() as cursor:
        cursor.execute(_SUPPORT_SQL)
        installed, preloaded = cursor.fetchone()
    return ServerSupport(installed=bool(installed), preloaded=bool(preloaded))


def mode_note(built: Mode) -> str:
    """A sentence for /healthz when the mode is not what the setting or the server suggests."""
    support = server_support()
    if built == "postgresql" and settings.TIMESCALE != "off":
        if support.installed and not support.preloaded:
            return f"plain PostgreSQL mode: {support.problem()}"
        if support.usable:
            return (
                "plain PostgreSQL mode: the tables were built before TimescaleDB was available; "
                "see docs/operations.md to move them to hypertables"
            )
    return ""


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
    support = server_support(schema_editor.connection)
    if wanted == "on" and not support.usable:
        raise TimescaleUnavailable(f"HEADROOM_TIMESCALE=on but {support.problem()}")
    if wanted == "off" or not support.usable:
        if wanted == "auto" and support.installed:
            log.warning(
                "HEADROOM_TIMESCALE=auto: using plain PostgreSQL tables because %s", support.problem()
            )
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
    # Retention is not a TimescaleDB policy: it goes by when samples were stored, not by their
    # own (often years old) timestamps, and is the same in both modes (workers.retention).


def remove_retention_policies(schema_editor: BaseDatabaseSchemaEditor) -> None:
    """Drop the retention policies earlier versions added (migration 0003); plain mode has none."""
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT relkind FROM pg_class WHERE relname = %s", [ROLLUP])
        row = cursor.fetchone()
    if row is None or row[0] != "v":
        return
    for table in ("counter_sample", "measurement"):
        schema_editor.execute(f"SELECT remove_retention_policy('{table}', if_exists => true)")


def uninstall(schema_editor: BaseDatabaseSchemaEditor) -> None:
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT relkind FROM pg_class WHERE relname = %s", [ROLLUP])
        row = cursor.fetchone()
    if row is None:
        return
    schema_editor.execute(f"DROP {'MATERIALIZED VIEW' if row[0] == 'v' else 'TABLE'} {ROLLUP}")


# --- Rewriting stored rows -----------------------------------------------------


def allow_unbounded_decompression() -> None:
    """Let this transaction rewrite rows in compressed chunks, however many.

    Deleting an upload's old rows (re-parse) or copying rows whose time falls
    in an already compressed chunk (a late upload) decompresses the affected
    segments. TimescaleDB refuses a transaction that decompresses more than
    ``timescaledb.max_tuples_decompressed_per_dml_transaction`` rows (100,000
    by default) with SQLSTATE 53400; 0 lifts that guard for this transaction
    only. The compression policy compresses the chunks again later.
    Plain PostgreSQL has nothing to lift.
    """
    if mode() != "timescaledb":
        return
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL timescaledb.max_tuples_decompressed_per_dml_transaction = 0")


# --- Keeping rollups current ------------------------------------------------------


def bucket_floor(moment: datetime) -> datetime:
    return moment.replace(second=0, microsecond=0)


def refresh_rollups(start: datetime, end: datetime) -> bool:
    """Make ``counter_rollup_1m`` exact for every bucket touching ``[start, end]``.

    False when it could not be done now: on TimescaleDB inside a transaction
    block, where ``CALL refresh_continuous_aggregate()`` is refused and would
    abort the caller's transaction. The caller then keeps its dirty ranges, so
    readers keep answering those minutes from the raw samples (exact either
    way) and the next refresh outside a transaction does the work.
    """
    lo = bucket_floor(start)
    hi = bucket_floor(end) + ROLLUP_WIDTH
    if mode() == "timescaledb":
        if connection.in_atomic_block:
            return False
        with connection.cursor() as cursor:
            cursor.execute(f"CALL refresh_continuous_aggregate('{ROLLUP}', %s, %s)", [lo, hi])
        return True
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
    return True

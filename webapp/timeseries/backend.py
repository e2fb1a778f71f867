"""The one switch between TimescaleDB and plain PostgreSQL.

Everything that differs between the two lives here, and nowhere else:

* ``install`` (called by migration 0002) creates the extension when it is
  installed *and* preloaded (``auto`` falls back to plain tables otherwise and
  ``/healthz`` says why; ``on`` refuses with the reason) and makes
  ``measurement`` (and the first layout's ``counter_sample``) hypertables.
* ``move_to_row_layout`` (migration 0009) stores each file row's time once,
  in ``sample_row``, and the samples in ``sample_point``: a hypertable on
  TimescaleDB, compressed after ``HEADROOM_COMPRESS_AFTER_DAYS`` without
  segments, ordered by series and row. The one-minute rollup
  ``counter_rollup_1m`` is from then on an ordinary table in both modes (it
  was a continuous aggregate on TimescaleDB, which can only bucket its
  hypertable's own time column).
* ``move_row_times_to_points`` (migration 0010) keeps each row's time as the
  row's point of series 0 in ``sample_point`` and drops ``sample_row``.
* ``refresh_rollups`` brings the rollup up to date for a time range: a
  delete-and-recompute under an advisory lock, the same in both modes.
* ``bucket_expression`` gives ``time_bucket`` or ``date_bin`` with the same
  origin, so both modes put a timestamp into the same bucket.

The mode is read from the database itself (is ``measurement`` a hypertable?),
so code never guesses from settings what migrations actually built. How
samples are read and written is ``webapp.timeseries.samples``.
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

from webapp.timeseries import row_table_sql, samples

Mode = Literal["timescaledb", "postgresql"]

log = logging.getLogger(__name__)

ROLLUP = "counter_rollup_1m"
ROLLUP_WIDTH = timedelta(minutes=1)
# time_bucket's default origin for sub-month widths is Monday 2000-01-03; we
# pass it explicitly to both functions so buckets line up exactly.
ORIGIN = "2000-01-03 00:00:00+00"
_ADVISORY_LOCK = 0x48524F4C  # "HROL": serialises rollup refreshes


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


def mode(conn: BaseDatabaseWrapper | None = None) -> Mode:
    """What the migrations built: ``measurement`` as a hypertable means TimescaleDB."""
    with (conn or connection).cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_extension WHERE extname = 'timescaledb'")
        if cursor.fetchone() is None:
            return "postgresql"
        cursor.execute(
            "SELECT 1 FROM _timescaledb_catalog.hypertable WHERE table_name = 'measurement' "
            "AND schema_name = current_schema()"
        )
        return "timescaledb" if cursor.fetchone() is not None else "postgresql"


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
    _create_rollup_table(schema_editor)


def _create_rollup_table(schema_editor: BaseDatabaseSchemaEditor) -> None:
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
    """Make ``counter_rollup_1m`` exact for every bucket touching ``[start, end]``; True when done.

    (It was False on TimescaleDB inside a transaction block while the rollup
    was a continuous aggregate; callers still keep their dirty ranges then.)
    """
    lo = bucket_floor(start)
    hi = bucket_floor(end) + ROLLUP_WIDTH
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_ADVISORY_LOCK])
        # Series by series through the key (the rollup has no index on the minute alone): a
        # load's span is a sliver of a year's table, which the planner then scans in full.
        cursor.execute(
            f"DELETE FROM {ROLLUP} r USING timeseries_counterseries cs "
            "WHERE r.series_id = cs.id AND r.bucket >= %s AND r.bucket < %s",
            [lo, hi],
        )
        cursor.execute(
            f"INSERT INTO {ROLLUP} (series_id, bucket, n, total, minimum, maximum) "
            f"SELECT series_id, {_MINUTE}, count(*), sum(value), min(value), max(value) "
            f"FROM {samples.all_series('%s', '%s')} s GROUP BY 1, 2",
            [lo, hi],
        )
    return True


# --- The row layout (migration 0009, issue 25) ---------------------------------------

_MINUTE = f"date_bin(INTERVAL '1 minute', time, TIMESTAMPTZ '{ORIGIN}')"


def move_to_row_layout(schema_editor: BaseDatabaseSchemaEditor) -> None:
    """Keep each file row's time once: ``counter_sample`` becomes ``sample_row`` + ``sample_point``.

    Perfmon stamps carry millisecond jitter, so a time per sample costs about
    3 of the ~4 compressed bytes a sample took (bench/README.md, "Choosing a
    layout"). A row of a file is now ``sample_row (row_id, upload_id, time)``
    and a sample ``sample_point (day, series_id, row_id, value)``: ``row_id``
    is the upload's id shifted 32 bits left plus the row's index, so
    consecutive rows have consecutive ids (a delta-of-delta of zero within a
    series) and an upload's rows are one range. ``day`` (the row's day) keeps
    chunks, compression and chunk exclusion by time at no cost once compressed.

    On TimescaleDB ``sample_point`` is the hypertable, compressed without
    segments, ordered by ``series_id, row_id``; the one-minute rollup becomes
    the ordinary table plain PostgreSQL already had (a continuous aggregate can
    only bucket its hypertable's own time column), kept by the worker from
    ``rollup_dirty`` in both modes. ``counter_sample`` stays as a view for SQL
    readers outside the product (Grafana) and ad-hoc checks, with an INSTEAD OF
    INSERT trigger for hand-made rows. Existing samples are moved.
    """
    timescale = mode(schema_editor.connection) == "timescaledb"
    run = schema_editor.execute
    run(
        "CREATE TABLE sample_row (row_id bigint PRIMARY KEY, upload_id bigint NOT NULL, "
        "time timestamptz NOT NULL)"
    )
    run("CREATE INDEX sample_row_time ON sample_row (time)")
    run(
        "CREATE TABLE sample_point (day timestamptz NOT NULL, series_id bigint NOT NULL, "
        "row_id bigint NOT NULL, value double precision NOT NULL)"
    )
    if timescale:
        chunk = f"INTERVAL '{int(settings.TIMESCALE_CHUNK_INTERVAL_DAYS)} days'"
        run(
            f"SELECT create_hypertable('sample_point', 'day', chunk_time_interval => {chunk}, "
            "create_default_indexes => false)"
        )
    # One index: every read reaches points from their rows (samples.py), so (row_id, series_id)
    # serves a row's samples of one series, a row's samples, and an upload's range of rows.
    run("CREATE INDEX sample_point_row ON sample_point (row_id, series_id)")
    for statement in row_table_sql.adding("counter_sample"):
        run(statement)
    if timescale:
        run(f"DROP MATERIALIZED VIEW {ROLLUP}")
        _create_rollup_table(schema_editor)
        run(
            f"INSERT INTO {ROLLUP} (series_id, bucket, n, total, minimum, maximum) "
            f"SELECT series_id, {_MINUTE}, count(*), sum(value), min(value), max(value) "
            "FROM counter_sample GROUP BY 1, 2"
        )
    run("DROP TABLE counter_sample")
    # Windows read a series' minutes from the rollup (analysis/windows.py). Its rows are written a
    # minute of every series at a time, so one series' minutes lie on as many heap pages as there
    # are minutes: with the columns in the key's index they are read from a few leaf pages
    # (capacity at 100 M samples on TimescaleDB took 310 ms heap-bound, 95 ms index-only).
    run(
        f"ALTER TABLE {ROLLUP} DROP CONSTRAINT {ROLLUP}_pkey, "
        "ADD PRIMARY KEY (series_id, bucket) INCLUDE (n, total, minimum, maximum)"
    )
    compress_after = int(settings.TIMESCALE_COMPRESS_AFTER_DAYS)
    if timescale and compress_after:
        # An explicit sparse index: the automatic one (a bloom filter per batch on the
        # (row_id, series_id) index) costs 1.4 B a sample on the real log and no read needs it;
        # TimescaleDB appends the partition column ``day`` to the order itself.
        run(
            "ALTER TABLE sample_point SET (timescaledb.compress, timescaledb.compress_segmentby = '', "
            "timescaledb.compress_orderby = 'series_id, row_id', timescaledb.sparse_index = 'minmax(series_id)')"
        )
        run(
            f"SELECT add_compression_policy('sample_point', compress_after => INTERVAL '{compress_after} days')"
        )
    run(f"CREATE VIEW counter_sample AS {row_table_sql.AS_ROWS}")
    run(row_table_sql.INSERT_TRIGGER)
    run(
        "CREATE TRIGGER counter_sample_insert INSTEAD OF INSERT ON counter_sample "
        "FOR EACH ROW EXECUTE FUNCTION counter_sample_insert()"
    )


# --- Row times as points (migration 0010, issue 25) ------------------------------------


def move_row_times_to_points(schema_editor: BaseDatabaseSchemaEditor) -> None:
    """Keep each row's time as a point of series ``samples.ROW_TIME`` and drop ``sample_row``.

    A table of its own cost every database its heap, two indexes and the
    free-space and visibility maps (72 KiB of the 520 KiB the real 2,633-column
    log took compressed, bench/README.md); as points, the times compress in the
    samples' own chunks, read through one small partial index before
    compression and each batch's minimum and maximum value after it.
    """
    timescale = mode(schema_editor.connection) == "timescaledb"
    run = schema_editor.execute
    run(
        "INSERT INTO sample_point (day, series_id, row_id, value) "
        f"SELECT {samples.DAY.format('time')}, {samples.ROW_TIME}, row_id, {samples.MICROS.format('time')} "
        "FROM sample_row"
    )
    run(
        f"CREATE INDEX sample_point_time ON sample_point (value, row_id) WHERE series_id = {samples.ROW_TIME}"
    )
    run(f"CREATE OR REPLACE VIEW counter_sample AS {samples.AS_ROWS}")
    run(samples.INSERT_TRIGGER)
    run("DROP TABLE sample_row")
    if timescale and int(settings.TIMESCALE_COMPRESS_AFTER_DAYS):
        # A batch's minimum and maximum value let a read of the rows' times skip the batches
        # outside its range (16 bytes a batch: the real log's 160 batches, 2.5 KiB).
        run("ALTER TABLE sample_point SET (timescaledb.sparse_index = 'minmax(series_id), minmax(value)')")

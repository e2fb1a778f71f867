"""``make bench-storage``: bytes per stored counter sample, against the gzip'd CSV it came from.

For each input -- the real 2,633-column perfmon log among the shared fixtures
and the synthetic file ``make bench-ingest`` uses -- it prints bytes per
sample of:

* the source CSV and the CSV through ``gzip -6`` (the baseline: what keeping
  the uploads compressed would cost);
* ``counter_sample`` on plain PostgreSQL: heap, TOAST and indexes
  (``pg_total_relation_size``);
* ``counter_sample`` on TimescaleDB before compression (``hypertable_size``)
  and after ``compress_chunk`` on every chunk, with the compression settings
  the migrations installed (``webapp/timeseries/backend.py``).

Each file goes through the real pipeline (parser, validation, loader) into
a fresh ``counter_sample``, so the figures are of what the product stores:
blank cells are not samples, the series dictionary and the one-minute rollup
are not counted. Samples are one file at a time, so a short file (the real
one: 61 rows per series) puts few samples in each compressed batch; a
chunk's worth of uploads from the same hosts fills batches better.

Both modes run in this one process, against whichever are reachable: plain
PostgreSQL on ``DATABASE_URL`` (built with ``HEADROOM_TIMESCALE=off`` there),
TimescaleDB on ``HEADROOM_TSDB_URL``, else the test cluster on
127.0.0.1:55432 (``../shared/timescaledb/start``), else ``DATABASE_URL`` if it
has the extension. Each uses a throw-away database ``headroom_bench_storage``
that is dropped afterwards. ``--variants`` also recompresses the
TimescaleDB data with other settings, for comparison.
"""

from __future__ import annotations

import argparse
import gzip
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DB_NAME = "headroom_bench_storage"
SHARED = Path(os.environ.get("HEADROOM_SHARED", ROOT.parent / "shared"))
REAL_FILE = (
    SHARED / "fixtures" / "real" / "perfmon_csv" / "iversonlu_SystemPerformance_DCS_ChinaTZ_2633cols.csv"
)
TSDB_TEST_CLUSTER = "postgres://postgres@127.0.0.1:55432/postgres"
# Compression settings --variants tries on sample_point: (segmentby, orderby), each with no sparse
# index but the order columns' own (the installed settings keep a minmax of series_id only).
VARIANTS = (
    ("", "series_id, row_id"),
    ("series_id", "row_id"),
)
# What a sample costs: its points and the rows' times, points too (webapp.timeseries.samples).
PLAIN_BYTES = "SELECT pg_total_relation_size('sample_point')"
PLAIN_HEAP = "SELECT pg_table_size('sample_point')"
TSDB_BYTES = "SELECT hypertable_size('sample_point')"


@dataclass
class Source:
    name: str
    path: Path
    csv_bytes: int
    gzip_bytes: int
    samples: int = 0
    stored: dict[str, int] = field(default_factory=dict)  # column -> bytes
    reads: dict[str, float] = field(default_factory=dict)  # stored label -> one-counter one-day read, ms
    notes: list[str] = field(default_factory=list)


def lengthen(source: Path, target: Path, times: int) -> None:
    """Write ``source`` (a perfmon CSV) ``times`` over, each copy's timestamps after the previous copy's.

    Stands in for a longer log of the same machine: one chunk then holds
    more samples per series, as it does when a host uploads for days.
    """
    stamp_format = "%m/%d/%Y %H:%M:%S.%f"
    with open(source, encoding="utf-8-sig", newline="") as handle:
        header, *rows = [line for line in handle.read().splitlines() if line.strip()]
    # Every row starts with its quoted timestamp: "MM/DD/YYYY HH:MM:SS.mmm",
    stamps = [datetime.strptime(row[1:24], stamp_format) for row in rows]
    span = stamps[-1] - stamps[0] + (stamps[-1] - stamps[-2])
    with open(target, "w", encoding="utf-8", newline="") as out:
        out.write(header + "\r\n")
        for copy in range(times):
            for stamp, row in zip(stamps, rows, strict=True):
                moved = (stamp + span * copy).strftime(stamp_format)[:-3]
                out.write(f'"{moved}"{row[25:]}\r\n')


def with_database(url: str, name: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))


def timescale_url() -> str | None:
    """A server with TimescaleDB preloaded, or None."""
    import psycopg

    from webapp.launcher import reachable

    candidates = [os.environ.get("HEADROOM_TSDB_URL", "")]
    if reachable("127.0.0.1", 55432):
        candidates.append(TSDB_TEST_CLUSTER)
    candidates.append(os.environ["DATABASE_URL"])
    for url in filter(None, candidates):
        try:
            with psycopg.connect(url, connect_timeout=5) as conn:
                row = conn.execute(
                    "SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'timescaledb') "
                    "AND 'timescaledb' = ANY (string_to_array(replace("
                    "current_setting('shared_preload_libraries'), ' ', ''), ','))"
                ).fetchone()
        except psycopg.OperationalError:
            continue
        if row and row[0]:
            return url
    return None


@contextmanager
def fresh_database(server_url: str, timescale: str) -> Iterator[None]:
    """Point Django's default connection at a new, migrated ``headroom_bench_storage`` on ``server_url``.

    The pipeline writes through the default connection, so switching servers
    in one process means closing it and changing its settings; the setting
    ``TIMESCALE`` is switched the same way so migrations build that mode.
    """
    import psycopg
    from django.conf import settings
    from django.contrib.contenttypes.models import ContentType
    from django.core.management import call_command
    from django.db import connection

    admin_url = with_database(server_url, "postgres")
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DB_NAME}")
    parts = urlsplit(server_url)
    connection.close()
    connection.settings_dict.update(
        NAME=DB_NAME,
        HOST=parts.hostname or "",
        PORT=str(parts.port or ""),
        USER=parts.username or "",
        PASSWORD=parts.password or "",
    )
    settings.TIMESCALE = timescale
    ContentType.objects.clear_cache()
    try:
        call_command("migrate", verbosity=0)
        yield
    finally:
        connection.close()
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")


def load_file(path: Path, host_name: str) -> int:
    """Run ``path`` through the real pipeline into the sample tables; return the samples stored."""
    from webapp.core.models import Campaign, Host, Project, Upload
    from workers.ingest import run_pipeline

    project, _ = Project.objects.get_or_create(slug="bench", defaults={"name": "Bench"})
    campaign, _ = Campaign.objects.get_or_create(project=project, slug="bench", defaults={"name": "Bench"})
    host, _ = Host.objects.get_or_create(project=project, name=host_name, defaults={"role": "server"})
    upload = Upload.objects.create(
        campaign=campaign,
        host=host,
        role="server",
        filename=path.name,
        sha256=f"bench-{path.name}"[:64],
        size=path.stat().st_size,
        storage_key="bench-storage",
        kind="perfmon_csv",
    )
    result = run_pipeline(upload, lambda: open(path, "rb"))  # noqa: SIM115  (the pipeline closes it)
    return result.rows


def one_value(sql: str, params: list[Any] | None = None) -> Any:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(sql, params or [])
        return cursor.fetchone()[0]


def trace_ms(sql: str = "") -> float:
    """The product's read of one counter over one day (the whole file when shorter), best of five.

    The counter is a well-filled one (the 101st by samples); the read is the one
    a trace of raw samples makes (``webapp.timeseries.samples.of_series``), or
    ``sql`` with the same three parameters.
    """
    import time

    from django.db import connection

    from webapp.timeseries import samples

    series_id = one_value(
        "SELECT series_id FROM sample_point GROUP BY series_id ORDER BY count(*) DESC, series_id LIMIT 1 OFFSET 100"
    )
    first = one_value(
        f"SELECT {samples.TIME.format('min(value)')} FROM sample_point WHERE series_id = {samples.ROW_TIME}"
    )
    sql = sql or f"SELECT time, value FROM {samples.of_series('%s', '%s', '%s')} s ORDER BY time"
    best = float("inf")
    with connection.cursor() as cursor:
        for _ in range(5):
            started = time.perf_counter()
            cursor.execute(sql, [series_id, first, first + timedelta(days=1)])
            cursor.fetchall()
            best = min(best, time.perf_counter() - started)
    return best * 1000


def layout_before() -> tuple[int, float]:
    """The baseline: bytes and the one-day read of the samples stored as they were before issue 25.

    One ``(time, series_id, value, upload_id)`` row per sample, keyed ``(series_id, time)``,
    a hypertable compressed segmented by series and ordered by time (a time per sample).
    """
    from django.db import connection

    chunk = int(os.environ.get("HEADROOM_CHUNK_INTERVAL_DAYS", "7"))
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TABLE sample_before (time timestamptz NOT NULL, series_id bigint NOT NULL, "
            "value float8 NOT NULL, upload_id bigint NOT NULL, PRIMARY KEY (series_id, time))"
        )
        cursor.execute("CREATE INDEX ON sample_before (upload_id)")
        cursor.execute(
            f"SELECT create_hypertable('sample_before', 'time', chunk_time_interval => INTERVAL '{chunk} days')"
        )
        cursor.execute(
            "INSERT INTO sample_before SELECT time, series_id, value, upload_id FROM counter_sample"
        )
        cursor.execute(
            "ALTER TABLE sample_before SET (timescaledb.compress, "
            "timescaledb.compress_segmentby = 'series_id', timescaledb.compress_orderby = 'time')"
        )
        cursor.execute("SELECT count(compress_chunk(c)) FROM show_chunks('sample_before') c")
    size = one_value("SELECT hypertable_size('sample_before')")
    read = trace_ms(
        "SELECT time, value FROM sample_before WHERE series_id = %s AND time >= %s AND time < %s ORDER BY time"
    )
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE sample_before")
    return size, read


def empty_samples() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE sample_point")


def measure_plain(sources: list[Source], server_url: str) -> None:
    with fresh_database(server_url, "off"):
        for source in sources:
            empty_samples()
            samples = load_file(source.path, "STORAGE01")
            source.samples = source.samples or samples
            assert samples == source.samples, (samples, source.samples)
            vacuum("sample_point")
            source.stored["postgresql"] = one_value(PLAIN_BYTES)
            source.stored["postgresql heap"] = one_value(PLAIN_HEAP)


def vacuum(table: str) -> None:
    """VACUUM (outside a transaction) so the visibility map and free-space map exist, as in production."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(f"VACUUM ANALYZE {table}")


def compress_all() -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(compress_chunk(c, if_not_compressed => true)) FROM show_chunks('sample_point') c"
        )
        return int(cursor.fetchone()[0])


def decompress_all() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(decompress_chunk(c, if_compressed => true)) FROM show_chunks('sample_point') c"
        )


def compression_settings() -> tuple[str, str]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(segmentby::text, ''), coalesce(orderby::text, '') "
            "FROM timescaledb_information.hypertable_compression_settings "
            "WHERE hypertable = 'sample_point'::regclass"
        )
        row = cursor.fetchone()
    return (row[0], row[1]) if row else ("", "")


def set_compression(segmentby: str, orderby: str) -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "ALTER TABLE sample_point SET (timescaledb.compress, "
            f"timescaledb.compress_segmentby = '{segmentby}', timescaledb.compress_orderby = '{orderby}', "
            "timescaledb.sparse_index = '')"
        )


def measure_timescale(sources: list[Source], server_url: str, variants: bool) -> str:
    """Fill in the TimescaleDB columns; return its version and the compression settings installed."""
    from django.db import connection

    with fresh_database(server_url, "on"):
        with connection.cursor() as cursor:
            # The compression policy would compress these (old) chunks on its own.
            # Policies (ids from 1000) would compress these old chunks on their own.
            cursor.execute(
                "SELECT alter_job(job_id, scheduled => false) FROM timescaledb_information.jobs WHERE job_id >= 1000"
            )
        installed = compression_settings()
        version = one_value("SELECT extversion FROM pg_extension WHERE extname = 'timescaledb'")
        for source in sources:
            empty_samples()
            samples = load_file(source.path, "STORAGE01")
            source.samples = source.samples or samples
            assert samples == source.samples, (samples, source.samples)
            vacuum("sample_point")
            source.stored["timescaledb"] = one_value(TSDB_BYTES)
            if not any(installed):
                source.notes.append("compression is off (HEADROOM_COMPRESS_AFTER_DAYS=0)")
                continue
            chunks = compress_all()
            source.stored["timescaledb compressed"] = one_value(TSDB_BYTES)
            source.notes.append(f"{chunks} chunk(s)")
            source.reads["timescaledb compressed"] = trace_ms()
            before = "before issue 25, compressed (baseline)"
            source.stored[before], source.reads[before] = layout_before()
            if variants:
                for segmentby, orderby in VARIANTS:
                    decompress_all()
                    set_compression(segmentby, orderby)
                    compress_all()
                    key = f"  segmentby '{segmentby}' orderby '{orderby}'"
                    source.stored[key] = one_value(TSDB_BYTES)
                    source.reads[key] = trace_ms()
                decompress_all()
                set_compression(*installed)
        described = f"segmentby '{installed[0]}', orderby '{installed[1]}'" if any(installed) else "off"
        return f"{version}, compression settings: {described}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=3600, help="synthetic file rows (as bench-ingest)")
    parser.add_argument("--counters", type=int, default=200, help="synthetic file counters")
    parser.add_argument("--variants", action="store_true", help="also try other compression settings")
    parser.add_argument(
        "--long-real",
        type=int,
        default=30,
        metavar="N",
        help="also the real log N times as long (timestamps moved; 0: not)",
    )
    args = parser.parse_args()

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
    import django

    django.setup()
    from bench.ingest import generate

    workdir = Path(tempfile.mkdtemp(prefix="hr-bench-storage-"))
    synthetic = workdir / "synthetic.csv"
    generate(synthetic, args.rows, args.counters)
    inputs = [("real 2633-column log", REAL_FILE), (f"synthetic {args.rows}x{args.counters}", synthetic)]
    if args.long_real and REAL_FILE.exists():
        longer = workdir / f"real_x{args.long_real}.csv"
        lengthen(REAL_FILE, longer, args.long_real)
        inputs.insert(1, (f"real log x{args.long_real} (its rows again, later timestamps)", longer))
    sources = []
    for name, path in inputs:
        if not path.exists():
            print(f"skipped {name}: {path} not found (set HEADROOM_SHARED)")
            continue
        data = path.read_bytes()
        sources.append(Source(name, path, len(data), len(gzip.compress(data, compresslevel=6))))

    plain_url = os.environ["DATABASE_URL"]
    measure_plain(sources, plain_url)
    print(f"plain PostgreSQL: {urlsplit(plain_url).netloc}")
    tsdb_url = timescale_url()
    if tsdb_url is None:
        print("TimescaleDB: not reachable (set HEADROOM_TSDB_URL or run ../shared/timescaledb/start)")
    else:
        described = measure_timescale(sources, tsdb_url, args.variants)
        print(f"TimescaleDB {described}: {urlsplit(tsdb_url).netloc}")

    for source in sources:
        print()
        print(f"{source.name}: {source.samples:,} samples, {source.path.name}  ({', '.join(source.notes)})")
        print(f"  {'':52} {'bytes':>12} {'B/sample':>9} {'vs gzip':>8}")
        rows = [
            ("CSV", source.csv_bytes),
            ("CSV gzip -6 (baseline)", source.gzip_bytes),
            *source.stored.items(),
        ]
        for label, size in rows:
            per = size / source.samples
            read = f"   read {source.reads[label]:6.1f} ms" if label in source.reads else ""
            print(f"  {label:52} {size:>12,} {per:>9.2f} {size / source.gzip_bytes:>8.2f}{read}")
    # The lines outside checks read (issue 25): TimescaleDB compressed against gzip, x30 and x1,
    # last; before them the one-day read against the layout before issue 25, same process.
    print()
    for source in sources:
        before = source.reads.get("before issue 25, compressed (baseline)")
        if before:
            ratio = source.reads["timescaledb compressed"] / before
            print(f"ratio one-day read compressed/before, {source.name}: {ratio:.2f}")
    for label, prefix in (("long", "real log x"), ("single", "real 2633")):
        found = next((s for s in sources if s.name.startswith(prefix)), None)
        if found is None or "timescaledb compressed" not in found.stored:
            print(f"ratio compressed/gzip {label}: n/a (no TimescaleDB or no real log)")
            continue
        print(
            f"ratio compressed/gzip {label}: {found.stored['timescaledb compressed'] / found.gzip_bytes:.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

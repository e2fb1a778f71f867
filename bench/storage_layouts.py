"""``make bench-storage BENCH_ARGS=--variants``: candidate layouts that store each file row's time once.

Perfmon stamps carry millisecond jitter, so a compressed time column costs
about 3 bytes per sample when every series keeps its own copy. Each candidate
keeps a file row's time once and gives the samples a ``row_id`` instead:
consecutive rows of a file have consecutive ids, so the delta-of-delta of
``row_id`` within a series is zero and costs next to nothing.

* row table: ``sample_row (row_id, upload_id, time)`` and ``sample_point
  (row_id, series_id, value)``, a hypertable on ``row_id``, under two
  compression settings; and the same points with the row times as one array
  per upload (``_upload_arrays``);
* clock in the points (``clock_layouts``): the row times as one more series
  per upload, in a hypertable binned by time.

Measured on the TimescaleDB copy ``bench/storage.py`` just loaded and
compressed, beside the product's own layout: bytes (everything a layout adds),
the read a trace makes (one counter over one day, the whole file when
shorter) and fifty short ranges read as ``webapp/analysis/windows.py`` reads a
step window's edges, from compressed chunks, best of five.

Nothing here is used by the product; it is the measurement behind the choice
(bench/README.md, "Choosing a layout").
"""

from __future__ import annotations

import time
from typing import Any

from django.db import connection

SETTINGS = (("", "series_id, row_id"), ("series_id", "row_id"))


def _all(sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params or [])
        return cursor.fetchall() if cursor.description else []


def _best_ms(sql: str, params: list[Any], times: int = 5) -> float:
    best = float("inf")
    for _ in range(times):
        started = time.perf_counter()
        _all(sql, params)
        best = min(best, time.perf_counter() - started)
    return best * 1000


def _one_counter() -> tuple[int, Any]:
    """A well-filled series (the 101st by samples) and its first time."""
    series_id, first = _all(
        "SELECT series_id, min(time) FROM counter_sample GROUP BY series_id "
        "ORDER BY count(*) DESC, series_id LIMIT 1 OFFSET 100"
    )[0]
    return series_id, first


def trace_ms() -> float:
    """The one-counter one-day read from ``counter_sample`` as it is stored now (best of five)."""
    series_id, first = _one_counter()
    return _best_ms(
        "SELECT time, value FROM counter_sample WHERE series_id = %s "
        "AND time >= %s AND time < %s + interval '1 day' ORDER BY time",
        [series_id, first, first],
    )


def measure(samples: int) -> list[tuple[str, int, float, float]]:
    """(label, bytes, trace ms) for today's compressed layout and the row-table candidates."""
    series_id, first = _one_counter()
    found = [
        (
            "product layout (installed settings)",
            _all("SELECT hypertable_size('counter_sample')")[0][0],
            trace_ms(),
            edges_ms(series_id),
        )
    ]
    _all("DROP TABLE IF EXISTS sample_point, sample_row")
    _all(
        "CREATE TABLE sample_row (row_id bigint PRIMARY KEY, upload_id bigint NOT NULL, time timestamptz NOT NULL)"
    )
    _all(
        "INSERT INTO sample_row SELECT row_number() OVER (ORDER BY upload_id, time), upload_id, time "
        "FROM (SELECT DISTINCT upload_id, time FROM counter_sample) d"
    )
    _all("CREATE INDEX sample_row_time ON sample_row (time)")
    _all(
        "CREATE TABLE sample_point (row_id bigint NOT NULL, series_id bigint NOT NULL, "
        "value float8 NOT NULL, PRIMARY KEY (series_id, row_id))"
    )
    _all("SELECT create_hypertable('sample_point', 'row_id', chunk_time_interval => 10000000)")
    _all(
        "INSERT INTO sample_point SELECT r.row_id, s.series_id, s.value "
        "FROM counter_sample s JOIN sample_row r USING (upload_id, time)"
    )
    assert _all("SELECT count(*) FROM sample_point")[0][0] == samples
    _all("VACUUM ANALYZE sample_row")
    rows = _all("SELECT pg_total_relation_size('sample_row')")[0][0]
    row_sql = (
        "SELECT r.time, p.value FROM sample_row r JOIN sample_point p ON p.row_id = r.row_id "
        "AND p.series_id = %s WHERE r.time >= %s AND r.time < %s + interval '1 day' ORDER BY r.time"
    )
    last = _all("SELECT max(time) FROM counter_sample WHERE series_id = %s", [series_id])[0][0]
    starts = _edge_starts(first, last)
    row_edges = (
        "SELECT count(*), sum(s.value) FROM unnest(%s::timestamptz[]) w(lo) CROSS JOIN LATERAL ("
        "SELECT p.value FROM sample_row r JOIN sample_point p ON p.row_id = r.row_id AND p.series_id = %s "
        f"WHERE r.time >= w.lo AND r.time < w.lo + {EDGE}) s"
    )
    _all("SET timescaledb.auto_sparse_indexes = off")
    for number, (segmentby, orderby) in enumerate(SETTINGS):
        if number:
            _all("SELECT count(decompress_chunk(c)) FROM show_chunks('sample_point') c")
        _all(
            "ALTER TABLE sample_point SET (timescaledb.compress, "
            f"timescaledb.compress_segmentby = '{segmentby}', timescaledb.compress_orderby = '{orderby}')"
        )
        _all("SELECT count(compress_chunk(c)) FROM show_chunks('sample_point') c")
        size = _all("SELECT hypertable_size('sample_point')")[0][0] + rows
        label = f"row table + points, segmentby '{segmentby}' orderby '{orderby}'"
        found.append(
            (
                label,
                size,
                _best_ms(row_sql, [series_id, first, first]),
                _best_ms(row_edges, [starts, series_id]),
            )
        )
        if not number:
            found.append(_upload_arrays(series_id, first, starts))
    _all("RESET timescaledb.auto_sparse_indexes")
    _all("DROP TABLE sample_point, sample_row")
    return found + clock_layouts(series_id, first, samples)


def _upload_arrays(series_id: int, first: Any, starts: list[Any]) -> tuple[str, int, float, float]:
    """The row table's times as one array per upload, the points as they are.

    In the product the array would be a column of the upload's own row, so the
    bytes counted are the arrays' (``pg_column_size``, compressed or TOASTed
    as stored) plus the four columns a read needs to find them: no relation of
    its own, no fixed pages. Rows are found by unnesting the arrays of the
    uploads whose span overlaps the range read.
    """
    _all(
        "CREATE TEMP TABLE upload_rows AS SELECT upload_id, min(row_id) AS first_row, min(time) AS first, "
        "max(time) AS last, array_agg(time ORDER BY row_id) AS times FROM sample_row GROUP BY upload_id"
    )
    size = _all("SELECT sum(pg_column_size(times) + 32) FROM upload_rows")[0][0]
    read = (
        "SELECT t.time, p.value FROM upload_rows u "
        "CROSS JOIN LATERAL unnest(u.times) WITH ORDINALITY t(time, n) "
        "JOIN sample_point p ON p.row_id = u.first_row + t.n - 1 AND p.series_id = %s "
        "WHERE u.first < {hi} AND u.last >= {lo} AND t.time >= {lo} AND t.time < {hi}"
    )
    day = read.format(lo="%s::timestamptz", hi="%s::timestamptz + interval '1 day'") + " ORDER BY 1"
    edges = (
        "SELECT count(*), sum(s.value) FROM unnest(%s::timestamptz[]) w(lo) CROSS JOIN LATERAL ("
        + read.format(lo="w.lo", hi=f"w.lo + {EDGE}")
        + ") s"
    )
    found = (
        "  the same, row times one array per upload",
        _all("SELECT hypertable_size('sample_point')")[0][0] + size,
        _best_ms(day, [series_id, first, first, first, first]),
        _best_ms(edges, [starts, series_id]),
    )
    _all("DROP TABLE upload_rows")
    return found


# Fifty short ranges (a window's partial minutes at its edges) read in one statement, as
# webapp/analysis/windows.py reads them: one LATERAL range scan each.
EDGES = 50
EDGE = "interval '20 seconds'"


def _edge_starts(first: Any, last: Any) -> list[Any]:
    step = (last - first) / EDGES
    return [first + step * number for number in range(EDGES)]


def edges_ms(series_id: int) -> float:
    """The fifty edge reads from ``counter_sample`` as it is stored now (best of five)."""
    first, last = _all("SELECT min(time), max(time) FROM counter_sample WHERE series_id = %s", [series_id])[0]
    return _best_ms(
        "SELECT count(*), sum(s.value) FROM unnest(%s::timestamptz[]) w(lo) CROSS JOIN LATERAL ("
        f"SELECT value FROM counter_sample WHERE series_id = %s AND time >= w.lo AND time < w.lo + {EDGE}) s",
        [_edge_starts(first, last), series_id],
    )


def _clock_read(bucket: str, lo: str, hi: str) -> str:
    """A series' (time, value) in [lo, hi) in the clock layout (%s: the series id)."""
    return (
        "SELECT to_timestamp(c.value) AS time, p.value FROM sample_point p JOIN sample_point c "
        "ON c.row_id = p.row_id AND c.bucket = p.bucket "
        f"WHERE p.series_id = %s AND c.series_id < 0 "
        f"AND p.bucket >= date_bin({bucket}, {lo}, TIMESTAMPTZ '2000-01-01') AND p.bucket < {hi} "
        f"AND c.bucket >= date_bin({bucket}, {lo}, TIMESTAMPTZ '2000-01-01') AND c.bucket < {hi} "
        f"AND c.value >= extract(epoch FROM {lo})::float8 AND c.value < extract(epoch FROM {hi})::float8"
    )


def clock_layouts(series_id: int, first: Any, samples: int) -> list[tuple[str, int, float, float]]:
    """Row times kept as one more series of the points: no table of their own.

    Points are ``(bucket, series_id, row_id, value)``, a hypertable on
    ``bucket`` (the row's time binned by the width tried: a step function,
    nearly free once compressed) so chunks, the compression policy and
    retention stay by time, and a read finds its rows by bucket. ``row_id`` is
    the upload's id shifted 32 bits left plus the row's index in the file. Each
    upload's clock is the series ``-upload_id``, its value the row's time as
    epoch seconds (a double holds every microsecond exactly).
    """
    last = _all("SELECT max(time) FROM counter_sample WHERE series_id = %s", [series_id])[0][0]
    starts = _edge_starts(first, last)
    found = []
    _all(
        "CREATE TEMP TABLE clock AS SELECT upload_id, time, "
        "(upload_id << 32) + row_number() OVER (PARTITION BY upload_id ORDER BY time) - 1 AS row_id "
        "FROM (SELECT DISTINCT upload_id, time FROM counter_sample) d"
    )
    _all("SET timescaledb.auto_sparse_indexes = off")
    for width in ("1 day", "1 hour", "10 minutes"):
        bucket = f"interval '{width}'"
        binned = f"date_bin({bucket}, %s, TIMESTAMPTZ '2000-01-01')"
        _all("DROP TABLE IF EXISTS sample_point")
        _all(
            "CREATE TABLE sample_point (bucket timestamptz NOT NULL, series_id bigint NOT NULL, "
            "row_id bigint NOT NULL, value float8 NOT NULL)"
        )
        _all("SELECT create_hypertable('sample_point', 'bucket', chunk_time_interval => interval '7 days')")
        _all(
            f"INSERT INTO sample_point SELECT {binned % 's.time'}, s.series_id, c.row_id, s.value "
            "FROM counter_sample s JOIN clock c USING (upload_id, time)"
        )
        assert _all("SELECT count(*) FROM sample_point")[0][0] == samples
        _all(
            f"INSERT INTO sample_point SELECT {binned % 'time'}, -upload_id, row_id, "
            "extract(epoch FROM time)::float8 FROM clock"
        )
        _all(
            "ALTER TABLE sample_point SET (timescaledb.compress, timescaledb.compress_segmentby = '', "
            "timescaledb.compress_orderby = 'series_id, row_id')"
        )
        _all("SELECT count(compress_chunk(c)) FROM show_chunks('sample_point') c")
        day = _clock_read(bucket, "%s::timestamptz", "%s::timestamptz + interval '1 day'") + " ORDER BY 1"
        edges = (
            "SELECT count(*), sum(s.value) FROM unnest(%s::timestamptz[]) w(lo) CROSS JOIN LATERAL ("
            + _clock_read(bucket, "w.lo", f"w.lo + {EDGE}")
            + ") s"
        )
        found.append(
            (
                f"clock in the points, bucket {width}, orderby 'series_id, row_id'",
                _all("SELECT hypertable_size('sample_point')")[0][0],
                _best_ms(day, [series_id, first, first, first, first, first, first]),
                _best_ms(edges, [starts, series_id]),
            )
        )
    _all("RESET timescaledb.auto_sparse_indexes")
    _all("DROP TABLE sample_point, clock")
    return found

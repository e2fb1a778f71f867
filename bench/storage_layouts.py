"""``make bench-storage BENCH_ARGS=--variants``: a candidate layout, each file row's time stored once.

Perfmon stamps carry millisecond jitter, so a compressed time column costs
about 3 bytes per sample when every series keeps its own copy. The candidate
keeps each file row's time once, in ``sample_row (row_id, upload_id, time)``,
and the samples as ``sample_point (row_id, series_id, value)``, a hypertable
on ``row_id``: consecutive rows of a file have consecutive ids, so the
delta-of-delta of ``row_id`` within a series is zero and costs next to
nothing. Measured on the TimescaleDB copy ``bench/storage.py`` just loaded
and compressed, beside the product's own layout:

* bytes: ``hypertable_size`` of the points plus ``pg_total_relation_size`` of
  the row table, for two compression settings of the points;
* the read a trace makes: one counter over one day (the whole file when it is
  shorter), from compressed chunks, best of five, in both layouts.

Nothing here is used by the product; it is the measurement behind the choice
(bench/README.md, "Storage").
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


def measure(samples: int) -> list[tuple[str, int, float]]:
    """(label, bytes, trace ms) for today's compressed layout and the row-table candidates."""
    series_id, first = _one_counter()
    found = [
        (
            "product layout (installed settings)",
            _all("SELECT hypertable_size('counter_sample')")[0][0],
            trace_ms(),
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
        found.append((label, size, _best_ms(row_sql, [series_id, first, first])))
    _all("RESET timescaledb.auto_sparse_indexes")
    _all("DROP TABLE sample_point, sample_row")
    return found

"""Where counter samples are stored: the SQL every reader and writer of them goes through.

Each file row's time is kept once (issue 25): a row is ``sample_row (row_id,
upload_id, time)`` and a sample ``sample_point (day, series_id, row_id,
value)``, where ``row_id`` is the upload's id shifted 32 bits left plus the
row's index in the file and ``day`` is the row's day (for chunks and chunk
exclusion). ``backend.move_to_row_layout`` built them; ``counter_sample`` is a
view over both for SQL readers outside the product.

Readers take a FROM item from here (arguments are SQL expressions: columns of
the enclosing query or placeholders, each used once) and writers call the
functions below; besides this module only the mode switch (``backend``) and
the migrations name these tables. A read finds its rows by time through
``sample_row``'s index, then each row's samples of the wanted series through
the index ``sample_point (row_id, series_id)``: a window or a trace costs the rows inside
it, as before.
"""

from __future__ import annotations

from datetime import datetime

from django.db import connection

ROW_BITS = 32  # an upload's rows are row ids [upload_id << 32, (upload_id + 1) << 32)
# The day a row falls in (UTC), as a format string for an SQL expression.
DAY = "date_bin(INTERVAL '1 day', {}, TIMESTAMPTZ '2000-01-01 00:00:00+00')"

# The loader's statements; the rows they expect are built by workers.pipeline.load.
COPY_POINTS = "COPY sample_point (day, series_id, row_id, value) FROM STDIN (FORMAT BINARY)"
COPY_ROWS = "COPY sample_row (row_id, upload_id, time) FROM STDIN (FORMAT BINARY)"

# The view ``counter_sample`` (time, series_id, value, upload_id) and its INSERT trigger (one
# row at a time: for tests and hand-made data; the loader writes the tables directly).
AS_ROWS = "SELECT r.time, p.series_id, p.value, r.upload_id FROM sample_row r JOIN sample_point p ON p.row_id = r.row_id"
INSERT_TRIGGER = f"""
    CREATE FUNCTION counter_sample_insert() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
        first bigint := NEW.upload_id << {ROW_BITS};
        found bigint;
    BEGIN
        SELECT row_id INTO found FROM sample_row
        WHERE time = NEW.time AND row_id >= first AND row_id < first + (1::bigint << {ROW_BITS});
        IF found IS NULL THEN
            SELECT coalesce(max(row_id) + 1, first) INTO found FROM sample_row
            WHERE row_id >= first AND row_id < first + (1::bigint << {ROW_BITS});
            INSERT INTO sample_row (row_id, upload_id, time) VALUES (found, NEW.upload_id, NEW.time);
        END IF;
        INSERT INTO sample_point (day, series_id, row_id, value)
        VALUES ({DAY.format("NEW.time")}, NEW.series_id, found, NEW.value);
        RETURN NEW;
    END $$
"""


def adding(source: str) -> tuple[str, str]:
    """The two statements that add ``source``'s samples ``(time, series_id, value, upload_id)``.

    For a migration, a bench or a test's bulk data: each upload's distinct
    times become rows after its existing ones, in time order (consecutive ids
    within a series, so they compress as the loader's do), then each sample
    joins its row. The loader builds both in COPY's binary format instead.
    """
    rows = (
        "INSERT INTO sample_row (row_id, upload_id, time) "
        "SELECT n.base + row_number() OVER (PARTITION BY d.upload_id ORDER BY d.time) - 1, d.upload_id, d.time "
        f"FROM (SELECT DISTINCT upload_id, time FROM {source}) d "
        "CROSS JOIN LATERAL (SELECT coalesce(max(r.row_id) + 1, d.upload_id << 32) AS base FROM sample_row r "
        f"WHERE r.row_id >= d.upload_id << {ROW_BITS} AND r.row_id < (d.upload_id + 1) << {ROW_BITS}) n"
    )
    points = (
        f"INSERT INTO sample_point (day, series_id, row_id, value) SELECT {DAY.format('r.time')}, s.series_id, "
        f"r.row_id, s.value FROM {source} s JOIN sample_row r ON r.upload_id = s.upload_id AND r.time = s.time"
    )
    return rows, points


def first_row(upload_id: int) -> int:
    return upload_id << ROW_BITS


def _in_range(series: str | None, lo: str, hi: str, many: bool = False) -> str:
    """Rows ``r`` with a time in ``[lo, hi)`` joined to their points ``p`` of ``series`` (None: all).

    The arguments are bound once each, in the order given, in a one-row ``b``: a
    caller's placeholders keep their order.
    """
    if series is None:
        bounds, match = "", "true"
    elif many:
        bounds, match = f"({series})::bigint[] AS series, ", "p.series_id = ANY(b.series)"
    else:
        bounds, match = f"({series})::bigint AS series, ", "p.series_id = b.series"
    return (
        f"(SELECT {bounds}({lo})::timestamptz AS lo, ({hi})::timestamptz AS hi) b "
        "JOIN sample_row r ON r.time >= b.lo AND r.time < b.hi "
        f"JOIN sample_point p ON p.row_id = r.row_id AND {match} "
        f"AND p.day >= {DAY.format('b.lo')} AND p.day < b.hi"
    )


def of_series(series: str, lo: str, hi: str) -> str:
    """FROM item ``(time, value)``: the samples of one series in ``[lo, hi)``."""
    return f"(SELECT r.time, p.value FROM {_in_range(series, lo, hi)})"


def of_series_short(series: str, lo: str, hi: str) -> str:
    """``of_series`` for a range of a few rows (the partial minutes at a window's edges).

    The range's row ids are gathered first, then read in one index scan of the
    points (``row_id = ANY``) that LATERAL ... OFFSET 0 keeps a nested loop.
    Joined instead, the planner may scan a whole chunk for the series when a
    hypertable's chunks are large (issue 25: capacity took 286 ms at 100 M
    samples on TimescaleDB); one scan per range rather than per row pays
    TimescaleDB's chunk exclusion once. Long ranges read better joined: the
    array is searched once per point read.
    """
    return (
        f"(SELECT r.time, p.value FROM (SELECT ({series})::bigint AS series, ({lo})::timestamptz AS lo, "
        f"({hi})::timestamptz AS hi) b "
        "CROSS JOIN LATERAL (SELECT array_agg(row_id) AS ids FROM sample_row "
        "WHERE time >= b.lo AND time < b.hi) rs "
        "CROSS JOIN LATERAL (SELECT q.row_id, q.value FROM sample_point q WHERE q.row_id = ANY(rs.ids) "
        f"AND q.series_id = b.series AND q.day >= {DAY.format('b.lo')} AND q.day < b.hi OFFSET 0) p "
        "JOIN sample_row r ON r.row_id = p.row_id)"
    )


def of_series_set(series: str, lo: str, hi: str) -> str:
    """FROM item ``(series_id, time, value)``: the samples of an array of series in ``[lo, hi)``."""
    return f"(SELECT p.series_id, r.time, p.value FROM {_in_range(series, lo, hi, many=True)})"


def all_series(lo: str, hi: str) -> str:
    """FROM item ``(series_id, time, value)``: every sample in ``[lo, hi)``."""
    return f"(SELECT p.series_id, r.time, p.value FROM {_in_range(None, lo, hi)})"


def of_upload(upload: str) -> str:
    """FROM item ``(series_id, time, value)``: the samples one upload produced."""
    return (
        f"(SELECT p.series_id, r.time, p.value FROM (SELECT ({upload})::bigint << {ROW_BITS} AS first) b "
        f"JOIN sample_row r ON r.row_id >= b.first AND r.row_id < b.first + (1::bigint << {ROW_BITS}) "
        "JOIN sample_point p ON p.row_id = r.row_id)"
    )


def first_clash(upload_id: int) -> tuple[int, datetime] | None:
    """A series and time the upload stores a sample at that is already stored (by it or another).

    A series holds one sample per moment (the layout before issue 25 had that as
    its key): the loader refuses a file that repeats one, or overlaps samples
    another upload stored. Only the rows sharing a moment with another row are
    looked at (one probe of the row index per row), then only the uploads they
    belong to, then only the series both hold: clashes are rare, and a lab's
    hosts often record at the same moments.
    """
    first, after = first_row(upload_id), first_row(upload_id + 1)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT DISTINCT o.row_id >> {ROW_BITS} FROM sample_row r "
            "JOIN sample_row o ON o.time = r.time AND o.row_id <> r.row_id "
            "WHERE r.row_id >= %s AND r.row_id < %s",
            [first, after],
        )
        others = [row[0] for row in cursor.fetchall()]
        if not others:
            return None
        cursor.execute(
            "SELECT array_agg(DISTINCT series_id) FROM sample_point WHERE row_id >= %s AND row_id < %s",
            [first, after],
        )
        ours = cursor.fetchone()[0] or []
        for other in others:
            low, high = first_row(other), first_row(other + 1)
            cursor.execute(
                "SELECT array_agg(DISTINCT series_id) FROM sample_point "
                "WHERE row_id >= %s AND row_id < %s AND series_id = ANY(%s)",
                [low, high, ours],
            )
            shared = cursor.fetchone()[0]
            if not shared:
                continue
            cursor.execute(
                """
                SELECT p.series_id, r.time FROM sample_row r
                JOIN sample_row o ON o.time = r.time AND o.row_id <> r.row_id AND o.row_id >= %s AND o.row_id < %s
                JOIN sample_point p ON p.row_id = r.row_id AND p.series_id = ANY(%s)
                JOIN sample_point q ON q.row_id = o.row_id AND q.series_id = p.series_id
                WHERE r.row_id >= %s AND r.row_id < %s
                ORDER BY r.time, p.series_id LIMIT 1
                """,
                [low, high, shared, first, after],
            )
            row = cursor.fetchone()
            if row:
                return int(row[0]), row[1]
    return None


def count_of_upload(upload_id: int) -> int:
    first = first_row(upload_id)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM sample_point WHERE row_id >= %s AND row_id < %s",
            [first, first_row(upload_id + 1)],
        )
        return int(cursor.fetchone()[0])


def delete_upload(upload_id: int) -> tuple[int, tuple[datetime, datetime] | None]:
    """Delete the samples one upload produced: how many went, and their first and last times."""
    first, after = first_row(upload_id), first_row(upload_id + 1)
    with connection.cursor() as cursor:
        cursor.execute(
            "WITH gone AS (DELETE FROM sample_row WHERE row_id >= %s AND row_id < %s RETURNING time) "
            "SELECT min(time), max(time) FROM gone",
            [first, after],
        )
        earliest, latest = cursor.fetchone()
        if earliest is None:
            return 0, None
        cursor.execute(
            "DELETE FROM sample_point WHERE row_id >= %s AND row_id < %s "
            f"AND day >= {DAY.format('%s::timestamptz')} AND day <= %s",
            [first, after, earliest, latest],
        )
        removed = cursor.rowcount
    return removed, (earliest, latest) if removed else None

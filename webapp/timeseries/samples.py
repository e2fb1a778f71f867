"""Where counter samples are stored: the SQL every reader and writer of them goes through.

Each file row's time is kept once (issue 25), as a point of its own: a
sample is ``sample_point (day, series_id, row_id, value)``, where ``row_id``
is the upload's id shifted 32 bits left plus the row's index in the file and
``day`` is the row's day (for chunks and chunk exclusion), and the row's time
is the point of series ``ROW_TIME`` (0: no counter has that id) in the same
row, its value the time in microseconds since 2000 (a double holds that
exactly until 2255). So the times compress with the values, in the same
chunks, and no second relation (with its own indexes, free-space and
visibility maps) is paid per database and read per window. ``backend``
built the layout (migrations 0009 and 0010); ``counter_sample`` is a view
over it for SQL readers outside the product.

Readers take a FROM item from here (arguments are SQL expressions: columns of
the enclosing query or placeholders, each used once) and writers call the
functions below; besides this module only the mode switch (``backend``) and
the migrations name the table. A read finds its rows by time through the
partial index ``sample_point_time (value, row_id) WHERE series_id = 0`` (on
compressed chunks, through each batch's minimum and maximum value), then each
row's samples of the wanted series through the index ``sample_point (row_id,
series_id)``: a window or a trace costs the rows inside it.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import connection

ROW_BITS = 32  # an upload's rows are row ids [upload_id << 32, (upload_id + 1) << 32)
ROW_TIME = 0  # the series whose point in a row is the row's time
_MICROSECOND = timedelta(microseconds=1)
# The day a row falls in (UTC), as a format string for an SQL expression.
DAY = "date_bin(INTERVAL '1 day', {}, TIMESTAMPTZ '2000-01-01 00:00:00+00')"
# A row time's point value from a timestamptz, and back (exact: whole microseconds).
MICROS = "(extract(epoch FROM {}) * 1000000 - 946684800000000)::float8"
TIME = "(TIMESTAMPTZ '2000-01-01 00:00:00+00' + {} * INTERVAL '1 microsecond')"
# Rows ``r`` (time points) whose time is in [lo, hi): ``lo`` and ``hi`` are SQL expressions.
_ROWS_IN = (
    f"r.series_id = {ROW_TIME} AND r.value >= {MICROS.format('{lo}')} AND r.value < {MICROS.format('{hi}')} "
    f"AND r.day >= {DAY.format('{lo}')} AND r.day < {{hi}}"
)

# The loader's statement; the records it expects are built by workers.pipeline.load.
COPY_POINTS = "COPY sample_point (day, series_id, row_id, value) FROM STDIN (FORMAT BINARY)"

# The view ``counter_sample`` (time, series_id, value, upload_id) and its INSERT trigger (one
# row at a time: for tests and hand-made data; the loader writes the table directly).
AS_ROWS = (
    f"SELECT {TIME.format('r.value')} AS time, p.series_id, p.value, p.row_id >> {ROW_BITS} AS upload_id "
    f"FROM sample_point r JOIN sample_point p ON p.row_id = r.row_id AND p.day = r.day "
    f"AND p.series_id <> {ROW_TIME} WHERE r.series_id = {ROW_TIME}"
)
INSERT_TRIGGER = f"""
    CREATE OR REPLACE FUNCTION counter_sample_insert() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
        first bigint := NEW.upload_id << {ROW_BITS};
        at float8 := {MICROS.format("NEW.time")};
        found bigint;
    BEGIN
        SELECT row_id INTO found FROM sample_point WHERE series_id = {ROW_TIME} AND value = at
        AND row_id >= first AND row_id < first + (1::bigint << {ROW_BITS});
        IF found IS NULL THEN
            SELECT coalesce(max(row_id) + 1, first) INTO found FROM sample_point WHERE series_id = {ROW_TIME}
            AND row_id >= first AND row_id < first + (1::bigint << {ROW_BITS});
            INSERT INTO sample_point (day, series_id, row_id, value)
            VALUES ({DAY.format("NEW.time")}, {ROW_TIME}, found, at);
        END IF;
        INSERT INTO sample_point (day, series_id, row_id, value)
        VALUES ({DAY.format("NEW.time")}, NEW.series_id, found, NEW.value);
        RETURN NEW;
    END $$
"""


def adding(source: str) -> tuple[str, str]:
    """The two statements that add ``source``'s samples ``(time, series_id, value, upload_id)``.

    For a bench or a test's bulk data: each upload's distinct times become
    rows after its existing ones, in time order (consecutive ids within a
    series, so they compress as the loader's do), then each sample joins its
    row. The loader builds both in COPY's binary format instead.
    """
    rows = (
        "INSERT INTO sample_point (day, series_id, row_id, value) "
        f"SELECT {DAY.format('d.time')}, {ROW_TIME}, "
        "n.base + row_number() OVER (PARTITION BY d.upload_id ORDER BY d.time) - 1, "
        f"{MICROS.format('d.time')} FROM (SELECT DISTINCT upload_id, time FROM {source}) d "
        f"CROSS JOIN LATERAL (SELECT coalesce(max(r.row_id) + 1, d.upload_id << {ROW_BITS}) AS base "
        f"FROM sample_point r WHERE r.series_id = {ROW_TIME} AND r.row_id >= d.upload_id << {ROW_BITS} "
        f"AND r.row_id < (d.upload_id + 1) << {ROW_BITS}) n"
    )
    points = (
        f"INSERT INTO sample_point (day, series_id, row_id, value) SELECT r.day, s.series_id, r.row_id, s.value "
        f"FROM {source} s JOIN sample_point r ON r.series_id = {ROW_TIME} AND r.day = {DAY.format('s.time')} "
        f"AND r.value = {MICROS.format('s.time')} AND r.row_id >= s.upload_id << {ROW_BITS} "
        f"AND r.row_id < (s.upload_id + 1) << {ROW_BITS}"
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
        bounds, match = "", f"p.series_id <> {ROW_TIME}"
    elif many:
        bounds, match = f"({series})::bigint[] AS series, ", "p.series_id = ANY(b.series)"
    else:
        bounds, match = f"({series})::bigint AS series, ", "p.series_id = b.series"
    return (
        f"(SELECT {bounds}({lo})::timestamptz AS lo, ({hi})::timestamptz AS hi) b "
        f"JOIN sample_point r ON {_ROWS_IN.format(lo='b.lo', hi='b.hi')} "
        f"JOIN sample_point p ON p.row_id = r.row_id AND {match} "
        f"AND p.day >= {DAY.format('b.lo')} AND p.day < b.hi"
    )


def of_series(series: str, lo: str, hi: str) -> str:
    """FROM item ``(time, value)``: the samples of one series in ``[lo, hi)``."""
    return f"(SELECT {TIME.format('r.value')} AS time, p.value FROM {_in_range(series, lo, hi)})"


def of_series_short(series: str, lo: str, hi: str) -> str:
    """``of_series`` for a range of a few rows (the partial minutes at a window's edges).

    The range's row ids and times are gathered first, then the points read in
    one index scan (``row_id = ANY``) that LATERAL ... OFFSET 0 keeps a nested
    loop. Joined instead, the planner may scan a whole chunk for the series
    when a hypertable's chunks are large (issue 25: capacity took 286 ms at
    100 M samples on TimescaleDB); one scan per range rather than per row pays
    TimescaleDB's chunk exclusion once. Long ranges read better joined: the
    array is searched once per point read.
    """
    return (
        f"(SELECT {TIME.format('t.at')} AS time, p.value FROM (SELECT ({series})::bigint AS series, "
        f"({lo})::timestamptz AS lo, ({hi})::timestamptz AS hi) b "
        "CROSS JOIN LATERAL (SELECT array_agg(r.row_id) AS ids, array_agg(r.value) AS ats FROM sample_point r "
        f"WHERE {_ROWS_IN.format(lo='b.lo', hi='b.hi')}) rs "
        "CROSS JOIN LATERAL (SELECT q.row_id, q.value FROM sample_point q WHERE q.row_id = ANY(rs.ids) "
        f"AND q.series_id = b.series AND q.day >= {DAY.format('b.lo')} AND q.day < b.hi OFFSET 0) p "
        "JOIN unnest(rs.ids, rs.ats) AS t (row_id, at) ON t.row_id = p.row_id)"
    )


def of_series_set(series: str, lo: str, hi: str) -> str:
    """FROM item ``(series_id, time, value)``: the samples of an array of series in ``[lo, hi)``."""
    return f"(SELECT p.series_id, {TIME.format('r.value')} AS time, p.value FROM {_in_range(series, lo, hi, many=True)})"


def all_series(lo: str, hi: str) -> str:
    """FROM item ``(series_id, time, value)``: every sample in ``[lo, hi)``."""
    return f"(SELECT p.series_id, {TIME.format('r.value')} AS time, p.value FROM {_in_range(None, lo, hi)})"


def rows_of(upload: str) -> str:
    """FROM item ``(row_id, time)``: the rows one upload stored (each file row that held a value)."""
    return (
        f"(SELECT r.row_id, {TIME.format('r.value')} AS time "
        f"FROM (SELECT ({upload})::bigint << {ROW_BITS} AS first) b "
        f"JOIN sample_point r ON r.series_id = {ROW_TIME} AND r.row_id >= b.first "
        f"AND r.row_id < b.first + (1::bigint << {ROW_BITS}))"
    )


def of_upload(upload: str) -> str:
    """FROM item ``(series_id, time, value)``: the samples one upload produced."""
    return (
        f"(SELECT p.series_id, {TIME.format('r.value')} AS time, p.value "
        f"FROM (SELECT ({upload})::bigint << {ROW_BITS} AS first) b "
        f"JOIN sample_point r ON r.series_id = {ROW_TIME} AND r.row_id >= b.first "
        f"AND r.row_id < b.first + (1::bigint << {ROW_BITS}) "
        f"JOIN sample_point p ON p.row_id = r.row_id AND p.day = r.day AND p.series_id <> {ROW_TIME})"
    )


def first_clash(upload_id: int, first_time: datetime, last_time: datetime) -> tuple[int, datetime] | None:
    """A series and time the upload stores a sample at that is already stored (by it or another).

    A series holds one sample per moment (the layout before issue 25 had that as
    its key): the loader refuses a file that repeats one, or overlaps samples
    another upload stored. Only the rows sharing a moment with another row are
    looked at (one probe of the row-time index per row), then only the uploads
    they belong to, then only the series both hold: clashes are rare, and a
    lab's hosts often record at the same moments. The upload's rows are found
    by its time span (``first_time`` to ``last_time``, inclusive) through the
    row-time index, not by their ids: the key index holds every sample of a row.
    """
    first, after = first_row(upload_id), first_row(upload_id + 1)
    # Two time points of the upload's rows ``r`` and another row ``o`` at the same moment.
    same_moment = (
        f"sample_point r JOIN sample_point o ON o.series_id = {ROW_TIME} AND o.value = r.value "
        f"AND o.day = r.day AND o.row_id <> r.row_id"
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT DISTINCT o.row_id >> {ROW_BITS} FROM {same_moment} "
            f"WHERE {_ROWS_IN.format(lo='%s', hi='%s')} AND r.row_id >= %s AND r.row_id < %s",
            [first_time, last_time + _MICROSECOND, first_time, last_time + _MICROSECOND, first, after],
        )
        others = [row[0] for row in cursor.fetchall()]
        if not others:
            return None
        cursor.execute(
            "SELECT array_agg(DISTINCT series_id) FROM sample_point "
            f"WHERE row_id >= %s AND row_id < %s AND series_id <> {ROW_TIME}",
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
                f"""
                SELECT p.series_id, {TIME.format("r.value")} FROM {same_moment}
                AND o.row_id >= %s AND o.row_id < %s
                JOIN sample_point p ON p.row_id = r.row_id AND p.series_id = ANY(%s)
                JOIN sample_point q ON q.row_id = o.row_id AND q.series_id = p.series_id
                WHERE r.series_id = {ROW_TIME} AND r.row_id >= %s AND r.row_id < %s
                ORDER BY r.value, p.series_id LIMIT 1
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
            f"SELECT count(*) FROM sample_point WHERE row_id >= %s AND row_id < %s AND series_id <> {ROW_TIME}",
            [first, first_row(upload_id + 1)],
        )
        return int(cursor.fetchone()[0])


def delete_upload(upload_id: int) -> tuple[int, tuple[datetime, datetime] | None]:
    """Delete the samples one upload produced: how many went, and their first and last times."""
    first, after = first_row(upload_id), first_row(upload_id + 1)
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH gone AS (DELETE FROM sample_point WHERE series_id = {ROW_TIME} AND row_id >= %s "
            f"AND row_id < %s RETURNING value) SELECT {TIME.format('min(value)')}, {TIME.format('max(value)')} "
            "FROM gone",
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

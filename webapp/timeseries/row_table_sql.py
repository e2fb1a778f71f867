"""Migration 0009's layout, frozen: each file row's time in a table of its own, ``sample_row``.

Migration 0009 built ``sample_row (row_id, upload_id, time)`` beside
``sample_point`` with this SQL; migration 0010 moved the rows' times into
``sample_point`` itself (``samples``) and dropped the table. The product
no longer reads it: this is here so that migrating an empty or an old
database goes through the same steps as it did.
"""

from __future__ import annotations

from webapp.timeseries.samples import DAY, ROW_BITS

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

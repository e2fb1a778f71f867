"""Each file row's time is kept once (issue 25): the rows, the points and the reads through them.

Expected figures come from reading the real perfmon logs with the csv module
(``tests/workers/test_ingest_perfmon.expected``); every read here is checked
against a hand computation from the file, and on TimescaleDB against the same
read from compressed chunks.
"""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection

from tests.ingest import ingest_bytes, ingest_path
from tests.modes import expected_mode
from tests.paths import FIXTURES
from tests.workers.test_ingest_perfmon import FILES, expected
from webapp.analysis.windows import Window, window_stats
from webapp.timeseries import samples

pytestmark = pytest.mark.django_db

NAME = "rajitharul_perfmon_SriLanka_1.2MB.csv"


def _all(sql: str, params: list | None = None) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params or [])
        return cursor.fetchall()


def _file_rows(name: str) -> list[tuple[datetime, list[str]]]:
    """(UTC time, cells) of each data row holding at least one value."""
    encoding, east, _ = FILES[name]
    rows = list(csv.reader(io.StringIO((FIXTURES / "perfmon_csv" / name).read_bytes().decode(encoding))))
    found = []
    for row in rows[1:]:
        if row and any(cell.strip() for cell in row[1:]):
            local = datetime.strptime(row[0], "%m/%d/%Y %H:%M:%S.%f")
            found.append(((local - timedelta(minutes=east)).replace(tzinfo=UTC), row[1:]))
    return found


def test_each_file_row_is_one_row_with_consecutive_ids_and_its_time(campaign):
    upload = ingest_path(campaign, FIXTURES / "perfmon_csv" / NAME, host="SRV", role="server")
    assert upload.status == "stored", upload.error
    rows = _file_rows(NAME)
    stored = _all(f"SELECT row_id, time FROM {samples.rows_of('%s')} r ORDER BY row_id", [upload.pk])
    first = upload.pk << 32
    assert [row_id for row_id, _ in stored] == list(range(first, first + len(rows)))
    assert [moment for _, moment in stored] == [moment for moment, _ in rows]
    # Every sample joins its row: the view gives the file's cells at the file's times.
    want = expected(NAME)
    assert samples.count_of_upload(upload.pk) == upload.rows == want["samples"]
    assert _all(
        "SELECT count(*), min(time), max(time) FROM counter_sample WHERE upload_id = %s", [upload.pk]
    ) == [(want["samples"], want["first"], want["last"])]
    days = _all(
        "SELECT DISTINCT day FROM sample_point WHERE row_id >= %s AND row_id < %s ORDER BY 1",
        [first, first + 2**32],
    )
    assert days == sorted(
        {(moment.replace(hour=0, minute=0, second=0, microsecond=0),) for moment, _ in rows}
    )
    assert len(days) == 3  # the log runs over three UTC days


def test_a_window_read_equals_the_file_by_hand(campaign):
    """A series' samples in a window, through ``samples.of_series``, against the file's own cells."""
    upload = ingest_path(campaign, FIXTURES / "perfmon_csv" / NAME, host="SRV", role="server")
    rows = _file_rows(NAME)
    header = next(csv.reader(io.StringIO((FIXTURES / "perfmon_csv" / NAME).read_text(encoding="utf-8"))))
    column = next(i for i, h in enumerate(header[1:]) if h.endswith("\\% Processor Time"))
    lo, hi = rows[10][0], rows[40][0]  # rows 10..39
    want = [(moment, float(cells[column])) for moment, cells in rows[10:40] if cells[column].strip()]
    (series_id,) = _all(
        "SELECT id FROM timeseries_counterseries WHERE source_path = %s", [header[column + 1]]
    )[0]
    got = _all(
        f"SELECT time, value FROM {samples.of_series('%s', '%s', '%s')} s ORDER BY time", [series_id, lo, hi]
    )
    assert got == want and len(got) == 30
    stats = window_stats([Window(key=1, series_id=series_id, lo=lo, hi=hi)])[1]
    assert (stats.samples, round(stats.total, 9)) == (30, round(sum(v for _, v in want), 9))
    assert upload.status == "stored"


def test_an_upload_that_repeats_another_uploads_samples_is_refused_whole(campaign):
    path = FIXTURES / "perfmon_csv" / "narmadha_DataCollector01_LogicalDisk_IST.csv"
    first = ingest_path(campaign, path, host="FS01", role="server")
    assert first.status == "stored", first.error
    before = _all("SELECT count(*) FROM sample_point")
    # The same log without its last row: other bytes (not a duplicate upload), the same samples.
    shorter = path.read_bytes().rstrip(b"\r\n").rsplit(b"\n", 1)[0] + b"\n"
    again = ingest_bytes(campaign, shorter, host="FS01", role="server", filename="overlap.csv")
    assert again.status == "failed"
    message = again.error["message"]
    assert "overlaps samples another upload already stored" in message
    assert (
        "\\\\IMPC3116\\LogicalDisk(" in message  # the log's own machine
        and expected("narmadha_DataCollector01_LogicalDisk_IST.csv")["first"].isoformat() in message
    )
    assert _all("SELECT count(*) FROM sample_point") == before
    assert _all(f"SELECT count(*) FROM {samples.rows_of('%s')} r", [again.pk]) == [(0,)]


def test_hand_made_samples_through_the_view_share_a_row_per_time(campaign):
    moment = datetime(2026, 1, 5, 12, 0, 0, 250_000, tzinfo=UTC)
    with connection.cursor() as cursor:
        for series_id, value in ((901, 1.5), (902, 2.5)):
            cursor.execute(
                "INSERT INTO counter_sample (time, series_id, value, upload_id) VALUES (%s, %s, %s, 77)",
                [moment, series_id, value],
            )
        cursor.execute(
            "INSERT INTO counter_sample (time, series_id, value, upload_id) VALUES (%s, 901, 3.5, 77)",
            [moment + timedelta(seconds=15)],
        )
    assert _all(f"SELECT row_id - (77::bigint << 32), time FROM {samples.rows_of('77')} r ORDER BY 1") == [
        (0, moment),
        (1, moment + timedelta(seconds=15)),
    ]
    assert _all(
        "SELECT series_id, value FROM counter_sample WHERE upload_id = 77 ORDER BY time, series_id"
    ) == [
        (901, 1.5),
        (902, 2.5),
        (901, 3.5),
    ]
    assert samples.delete_upload(77) == (3, (moment, moment + timedelta(seconds=15)))
    assert _all("SELECT count(*) FROM counter_sample WHERE upload_id = 77") == [(0,)]


def test_reads_from_compressed_chunks_equal_the_uncompressed_ones(campaign):
    if expected_mode() != "timescaledb":
        pytest.skip("compression is TimescaleDB's")
    upload = ingest_path(campaign, FIXTURES / "perfmon_csv" / NAME, host="SRV", role="server")
    want = expected(NAME)
    lo, hi = want["first"] + timedelta(minutes=1), want["last"]
    sql = (
        # Sums rounded: compressed batches add in another order.
        f"SELECT series_id, count(*), round(sum(value)::numeric, 6), min(time), max(time) "
        f"FROM {samples.of_series_set('%s', '%s', '%s')} s GROUP BY 1 ORDER BY 1"
    )
    series = [
        row[0]
        for row in _all("SELECT DISTINCT series_id FROM counter_sample WHERE upload_id = %s", [upload.pk])
    ]
    before = _all(sql, [series, lo, hi])
    assert sum(row[1] for row in before) > 1000
    chunks = _all("SELECT count(compress_chunk(c)) FROM show_chunks('sample_point') c")[0][0]
    assert chunks >= 1
    assert _all(
        "SELECT bool_and(is_compressed) FROM timescaledb_information.chunks WHERE hypertable_name = 'sample_point'"
    ) == [(True,)]
    assert _all(sql, [series, lo, hi]) == before
    assert samples.count_of_upload(upload.pk) == want["samples"]

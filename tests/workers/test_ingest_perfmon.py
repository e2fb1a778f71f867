"""Every real perfmon CSV goes through the whole pipeline into counter_sample exactly."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection

from tests.ingest import ingest_bytes, ingest_path
from tests.paths import FIXTURES
from webapp.core.models import RunStep, Upload

pytestmark = pytest.mark.django_db

# file -> (encoding, UTC offset in minutes east, zone given with the upload)
FILES = {
    "iversonlu_SystemPerformance_DCS_ChinaTZ_2633cols.csv": ("utf-8", 480, ""),
    "narmadha_DataCollector01_LogicalDisk_IST.csv": ("utf-8", 330, ""),
    "rajitharul_perfmon_SriLanka_1.2MB.csv": ("utf-8", 330, ""),
    "waflia_DataCollector01_ruRU_cp1251.csv": ("cp1251", 180, "Europe/Moscow"),  # bias cut off
}


def expected(name: str) -> dict:
    """Read the file with the csv module: counter columns, non-blank cells, first/last time."""
    encoding, east, _ = FILES[name]
    text = (FIXTURES / "perfmon_csv" / name).read_bytes().decode(encoding)
    rows = list(csv.reader(io.StringIO(text)))
    header, data = rows[0], [r for r in rows[1:] if r]
    counters = {i for i, h in enumerate(header) if h.startswith("\\\\")}
    unique: dict[str, int] = {}
    for i in sorted(counters):
        unique.setdefault(header[i].lower(), i)
    cells = len([1 for r in data for i in unique.values() if r[i].strip() != ""])
    stamps = [datetime.strptime(r[0], "%m/%d/%Y %H:%M:%S.%f") for r in data]
    to_utc = timedelta(minutes=east)
    return {
        "samples": cells,
        "first": (min(stamps) - to_utc).replace(tzinfo=UTC),
        "last": (max(stamps) - to_utc).replace(tzinfo=UTC),
        "columns": len(unique),
    }


def stored(upload: Upload) -> tuple:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*), min(time), max(time), count(DISTINCT series_id) FROM counter_sample WHERE upload_id = %s",
            [upload.pk],
        )
        return cursor.fetchone()


@pytest.mark.parametrize("name", sorted(FILES))
def test_every_real_perfmon_file_is_stored_exactly(campaign, name):
    want = expected(name)
    upload = ingest_path(
        campaign, FIXTURES / "perfmon_csv" / name, host="SRV", role="server", timezone=FILES[name][2]
    )
    assert upload.status == "stored", upload.error
    assert upload.parser == "perfmon_csv"
    count, first, last, series = stored(upload)
    assert count == upload.rows == want["samples"]
    assert (first, last) == (want["first"], want["last"])
    assert series <= want["columns"]
    assert upload.run.started_at == first and upload.run.ended_at == last


def test_a_russian_process_counter_is_stored_under_its_english_name(campaign):
    name = "waflia_DataCollector01_ruRU_cp1251.csv"
    upload = ingest_path(campaign, FIXTURES / "perfmon_csv" / name, host="RU1", timezone="Europe/Moscow")
    assert upload.status == "stored", upload.error
    assert upload.encoding == "cp1251"
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT source_path FROM timeseries_counterseries WHERE object = 'Process' "
            "AND counter = '% Processor Time' AND instance = 'Idle'"
        )
        paths = [row[0] for row in cursor.fetchall()]
    assert paths == ["\\\\DESKTOP-LRPVSK4\\Процесс(Idle)\\% загруженности процессора"]


def test_a_missing_bias_without_a_timezone_fails_clearly_with_no_rows(campaign):
    upload = ingest_path(
        campaign, FIXTURES / "perfmon_csv" / "waflia_DataCollector01_ruRU_cp1251.csv", host="RU1"
    )
    assert upload.status == "failed"
    assert "timezone" in upload.error["message"]
    assert upload.error["parser"] == "perfmon_csv"
    assert stored(upload)[0] == 0


def test_reingesting_an_upload_replaces_its_rows(campaign):
    name = "narmadha_DataCollector01_LogicalDisk_IST.csv"
    upload = ingest_path(campaign, FIXTURES / "perfmon_csv" / name, host="SRV", step=200)
    first = stored(upload)
    from webapp.core.uploads import requeue
    from workers.tasks import ingest_upload

    requeue(upload)
    ingest_upload.apply(args=(upload.pk,))
    upload.refresh_from_db()
    assert upload.status == "stored" and upload.attempts == 2
    assert stored(upload) == first
    assert RunStep.objects.filter(run=upload.run, users=200).count() == 1


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda b: b[: len(b) // 2], "truncated"),  # cut mid-row
        (lambda b: b"", "could not recognise"),
        (lambda b: bytes(range(256)) * 50, "could not recognise"),
        (lambda b: b.split(b"\n")[0] + b"\n" + b"9" * 3_000_000, ""),  # one huge line
    ],
    ids=["truncated", "empty", "garbage", "huge-line"],
)
def test_malformed_files_fail_with_a_message_and_no_rows(campaign, mutate, message, settings):
    settings.MAX_LINE_BYTES = 1_000_000
    data = mutate((FIXTURES / "perfmon_csv" / "rajitharul_perfmon_SriLanka_1.2MB.csv").read_bytes())
    upload = ingest_bytes(campaign, data, host="SRV", filename="bad.csv")
    assert upload.status == "failed"
    assert upload.error["message"]
    assert message in upload.error["message"]
    assert stored(upload)[0] == 0

"""Re-parsing replaces an upload's rows at any size, also in compressed chunks; a failed
re-parse keeps the previous rows and says so; a database limit is not retried."""

from __future__ import annotations

import csv
import io

import pytest
from django.db import connection

from tests.ingest import ingest_path, stored_rows
from tests.modes import on_timescale
from tests.paths import FIXTURES
from webapp.core.models import Upload
from webapp.core.uploads import requeue
from workers.tasks import ingest_upload

pytestmark = pytest.mark.django_db

IVERSON = FIXTURES / "perfmon_csv" / "iversonlu_SystemPerformance_DCS_ChinaTZ_2633cols.csv"
NARMADHA = FIXTURES / "perfmon_csv" / "narmadha_DataCollector01_LogicalDisk_IST.csv"


def filled_cells(path) -> int:
    """Non-blank counter cells of a perfmon CSV (the last IVERSON column is a description, not a counter)."""
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig"))))
    header, data = rows[0], rows[1:]
    last = len(header) if header[-1].startswith("\\\\") else len(header) - 1
    return sum(1 for row in data for cell in row[1:last] if cell.strip())


def compress_every_chunk() -> int:
    """Compress every chunk of sample_point on TimescaleDB; plain PostgreSQL has none (0)."""
    if not on_timescale():
        return 0
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(compress_chunk(c, if_not_compressed => true)) FROM show_chunks('sample_point') c"
        )
        return int(cursor.fetchone()[0])


def reparse(upload: Upload) -> Upload:
    requeue(upload)
    ingest_upload.apply(args=(upload.pk,))
    upload.refresh_from_db()
    return upload


def test_a_reparse_of_more_than_100000_rows_in_compressed_chunks_replaces_them(campaign):
    expected = filled_cells(IVERSON)
    assert expected > 100_000  # TimescaleDB's default decompression guard per transaction
    upload = ingest_path(campaign, IVERSON, host="GPU01", role="server")
    assert upload.status == "stored", upload.error
    assert upload.rows == stored_rows(upload.pk) == expected
    compressed = compress_every_chunk()
    assert (compressed > 0) == on_timescale()

    upload = reparse(upload)
    assert upload.status == "stored", upload.error
    assert upload.error is None
    assert upload.rows == stored_rows(upload.pk) == expected
    assert upload.attempts == 2


def test_a_late_upload_into_a_compressed_chunk_is_stored(campaign):
    first = ingest_path(campaign, IVERSON, host="GPU01", role="server")
    compress_every_chunk()
    # The same samples from another host land in the same (compressed) chunks.
    late = ingest_bytes_for_host(campaign, "GPU02")
    assert late.status == "stored", late.error
    assert late.rows == first.rows == stored_rows(late.pk)


def ingest_bytes_for_host(campaign, host: str) -> Upload:
    from tests.ingest import ingest_bytes

    data = IVERSON.read_bytes().replace(b"\\\\I-MEDUSA\\", b"\\\\" + host.encode() + b"\\")
    return ingest_bytes(campaign, data + b"\r\n", filename=IVERSON.name, host=host, role="server")


def test_a_failed_reparse_keeps_the_previous_rows_and_says_so(campaign):
    upload = ingest_path(campaign, NARMADHA, host="FS01", role="server")
    rows = upload.rows
    assert upload.status == "stored" and rows == stored_rows(upload.pk) == filled_cells(NARMADHA)

    Upload.objects.filter(pk=upload.pk).update(kind="fio_json")  # the wrong parser: this re-parse fails
    upload = reparse(upload)
    assert upload.status == "stored"  # the previous parse's rows are still what every view shows
    assert upload.rows == stored_rows(upload.pk) == rows
    assert upload.error is not None and upload.error["reparse_failed"] is True
    assert upload.error["message"].startswith(f"re-parse failed, so the {rows:,} rows of the previous parse")
    assert upload.error["parser"] == "fio_json"

    Upload.objects.filter(pk=upload.pk).update(kind="auto")
    upload = reparse(upload)
    assert (upload.status, upload.rows, upload.error) == ("stored", rows, None)


def test_a_first_parse_that_fails_has_no_rows(campaign):
    upload = ingest_path(campaign, NARMADHA, host="FS01", role="server", kind="fio_json")
    assert (upload.status, upload.rows, stored_rows(upload.pk)) == ("failed", 0, 0)
    assert upload.error is not None and "reparse_failed" not in upload.error


def test_a_database_limit_is_final_not_retried(campaign):
    upload = ingest_path(campaign, NARMADHA, host="FS01", role="server")
    rows = upload.rows
    with connection.cursor() as cursor:
        # A real server-side refusal with SQLSTATE 53400, as TimescaleDB's
        # decompression guard raises it, on every new measurement/sample row.
        cursor.execute(
            "CREATE FUNCTION test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            "RAISE EXCEPTION 'tuple decompression limit exceeded by operation' USING ERRCODE = '53400'; END $$"
        )
        cursor.execute(
            "CREATE TRIGGER test_refuse BEFORE INSERT ON sample_point FOR EACH ROW EXECUTE FUNCTION test_refuse()"
        )
    upload = reparse(upload)
    assert upload.attempts == 2  # the first parse and this one: no retries
    assert upload.status == "stored"
    assert upload.rows == stored_rows(upload.pk) == rows
    assert upload.error is not None
    assert "SQLSTATE 53400" in upload.error["message"]
    assert "not retried" in upload.error["message"]

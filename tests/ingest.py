"""Helpers to push a file through the real pipeline inside a test."""

from __future__ import annotations

from pathlib import Path

from django.db import connection

from webapp.core import rawstore
from webapp.core.models import Campaign, Upload
from webapp.core.upload_meta import UploadMeta
from webapp.core.uploads import accept
from workers.tasks import ingest_upload


def ingest_bytes(campaign: Campaign, data: bytes, **meta: object) -> Upload:
    """Store ``data`` as an upload and run the ingest task on it in this process."""
    stored = rawstore.save_bytes(data)
    upload, _ = accept(campaign, stored, UploadMeta(**meta))  # type: ignore[arg-type]
    ingest_upload.apply(args=(upload.pk,))
    upload.refresh_from_db()
    return upload


def ingest_path(campaign: Campaign, path: Path, **meta: object) -> Upload:
    meta.setdefault("filename", path.name)
    return ingest_bytes(campaign, path.read_bytes(), **meta)


def stored_rows(upload_id: int) -> int:
    """Rows the upload has in the time-series tables: counter samples plus measurements."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT (SELECT count(*) FROM counter_sample WHERE upload_id = %s)"
            " + (SELECT count(*) FROM measurement WHERE upload_id = %s)",
            [upload_id, upload_id],
        )
        return int(cursor.fetchone()[0])

"""Loading marks rollups stale only when counter samples changed; timings have no rollups."""

from __future__ import annotations

import json

import pytest

from tests.paths import FIXTURES
from webapp.core import rawstore
from webapp.core.models import Upload
from webapp.core.upload_meta import UploadMeta
from webapp.core.uploads import accept
from webapp.timeseries.models import RollupDirty
from workers.ingest import run_pipeline

pytestmark = pytest.mark.django_db

TIMINGS = json.dumps(
    [
        {"name": "logon.FS01", "started_at": "2015-06-01T09:00:00Z", "duration_ms": 1200, "repetition": r}
        for r in (1, 2)
    ]
).encode()
PERFMON = FIXTURES / "perfmon_csv" / "narmadha_DataCollector01_LogicalDisk_IST.csv"


def upload_of(campaign, data: bytes, **meta: object) -> Upload:
    upload, _ = accept(campaign, rawstore.save_bytes(data), UploadMeta(**meta))  # type: ignore[arg-type]
    return Upload.objects.select_related("campaign__project", "host", "run", "scenario").get(pk=upload.pk)


def test_a_timings_file_stores_its_rows_and_leaves_the_rollups_alone(campaign):
    result = run_pipeline(upload_of(campaign, TIMINGS, filename="t.json", host="FS01"))
    assert result.rows == 2
    assert result.rollups_stale is False
    assert not RollupDirty.objects.exists()


def test_a_perfmon_trace_marks_the_time_range_it_covers_stale(campaign):
    result = run_pipeline(upload_of(campaign, PERFMON.read_bytes(), filename=PERFMON.name, host="FS01"))
    assert result.rows > 0
    assert result.rollups_stale is True
    dirty = RollupDirty.objects.get()
    assert (dirty.start, dirty.end) == (result.first, result.last)

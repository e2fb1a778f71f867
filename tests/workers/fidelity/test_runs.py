"""Where a benchmark file's figures go through the real pipeline.

One file is one execution, so files sent without a run name never share a run
(nor its attributes) with another file.
"""

from __future__ import annotations

import pytest
from django.db import connection

from tests.ingest import ingest_path
from tests.workers.fidelity.cases import FIO, ROBOCOPY, SCENARIO, SINGLE_4K, WRITE_8K
from webapp.analysis.blocksize import block_size_points
from webapp.core.models import Campaign, Run, Scenario, Upload
from webapp.core.runs import default_run

pytestmark = pytest.mark.django_db


def _runs_of(upload: Upload) -> set[int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT DISTINCT run_id FROM measurement WHERE upload_id = %s", [upload.pk])
        return {row[0] for row in cursor.fetchall()}


def test_two_diskspd_reports_sent_without_a_run_get_a_block_size_row_each(campaign: Campaign) -> None:
    eight = ingest_path(campaign, WRITE_8K, scenario=SCENARIO)
    four = ingest_path(campaign, SINGLE_4K, scenario=SCENARIO)
    assert (eight.status, four.status) == ("stored", "stored")
    iops = {
        (point.block_size, point.direction): (point.value, point.runs)
        for point in block_size_points(campaign)
        if point.family == "iops"
    }
    # "total: ... | 2579.05 | 330118.77 |" and "total: ... | 1.98 | 508.09 |", not their average
    assert iops[("8192", "total")] == (330118.77, 1)
    assert iops[("4096", "total")] == (508.09, 1)
    assert iops[("8192", "write")] == (330118.77, 1)
    assert iops[("4096", "write")] == (508.09, 1)


def test_files_of_different_tools_sent_without_a_run_keep_their_own_parameters(campaign: Campaign) -> None:
    files = {
        "diskspd": WRITE_8K,
        "fio": FIO / "vc_fio-3.26_randwrite.json",
        "robocopy": ROBOCOPY / "ripvannwinkler_robocopy_NFL_MT16.log",
    }
    runs: dict[str, Run] = {}
    for tool, path in files.items():
        upload = ingest_path(campaign, path, scenario=SCENARIO, timezone="UTC")
        assert upload.status == "stored", upload.error
        (run_id,) = _runs_of(upload)
        runs[tool] = Run.objects.get(pk=run_id)
        assert runs[tool].tool == tool
        assert runs[tool].attributes["upload"] == str(upload.pk)
        assert runs[tool].started_at is not None
    shared = default_run(campaign, Scenario.for_dims(campaign, SCENARIO))
    assert shared.attributes == {} and shared.tool == ""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM measurement WHERE run_id = %s", [shared.pk])
        assert cursor.fetchone()[0] == 0
    assert len({run.pk for run in runs.values()} | {shared.pk}) == 4
    assert runs["diskspd"].attributes["block_size"] == "8192"
    assert runs["fio"].attributes["block_size"] == "4096"
    assert "source" in runs["robocopy"].attributes
    assert "rw" not in runs["diskspd"].attributes and "source" not in runs["diskspd"].attributes
    assert "command_line" not in runs["fio"].attributes and "source" not in runs["fio"].attributes
    assert "block_size" not in runs["robocopy"].attributes and "rw" not in runs["robocopy"].attributes


def test_a_file_sent_into_a_named_run_goes_to_that_run(campaign: Campaign) -> None:
    upload = ingest_path(campaign, SINGLE_4K, scenario=SCENARIO, run="sweep-1")
    assert upload.status == "stored"
    run = upload.run
    assert run is not None and _runs_of(upload) == {run.pk}
    assert (run.name, run.tool, run.attributes["block_size"]) == ("sweep-1", "diskspd", "4096")


def test_sending_the_same_file_again_reuses_its_run(campaign: Campaign) -> None:
    from workers.tasks import ingest_upload

    upload = ingest_path(campaign, SINGLE_4K, scenario=SCENARIO)
    before = _runs_of(upload)
    Upload.objects.filter(pk=upload.pk).update(status=Upload.Status.RECEIVED)
    ingest_upload.apply(args=(upload.pk,))
    assert _runs_of(upload) == before

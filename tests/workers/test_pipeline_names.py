"""Names that do not fit their columns, and runs named alike: a located ParseError or distinct runs, never a crash.

Found by the fuzz test at make-reliability size: an instance name of 600
spaces (PostgreSQL cuts trailing spaces to the column silently, so the loader
lost track of its series), and two scenarios whose 200-character labels
differed only after the cut (their default runs collided).
"""

from __future__ import annotations

import json

import pytest

from tests.ingest import ingest_bytes
from webapp.core.models import Run, Scenario
from webapp.core.runs import default_run, run_name

pytestmark = pytest.mark.django_db


def samples_with_instance(instance: str) -> bytes:
    sample = {
        "time": "2015-06-01T10:00:00Z",
        "object": "Processor",
        "instance": instance,
        "counter_name": "% Processor Time",
        "value": 5.0,
    }
    return json.dumps({"host": "FS01", "samples": [sample]}).encode()


@pytest.mark.parametrize("instance", ["_Total" + " " * 600, "x" * 256])
def test_a_counter_name_longer_than_its_column_fails_the_upload_with_a_message(campaign, instance):
    upload = ingest_bytes(
        campaign, samples_with_instance(instance), filename="s.json", host="FS01", kind="samples"
    )
    assert upload.status == "failed" and upload.rows == 0
    assert "its instance name is longer than 255 characters" in upload.error["message"]
    assert upload.error["line"] == 1


def test_a_255_character_instance_is_stored(campaign):
    upload = ingest_bytes(
        campaign, samples_with_instance("y" * 255), filename="s.json", host="FS01", kind="samples"
    )
    assert (upload.status, upload.rows) == ("stored", 1)


def test_scenarios_alike_for_their_first_200_characters_get_runs_of_their_own(campaign):
    shared = "z" * 250
    first = Scenario.for_dims(campaign, {"av": "on", "notes": shared + "1"})
    second = Scenario.for_dims(campaign, {"av": "on", "notes": shared + "2"})
    assert first.label[:200] == second.label[:200]
    runs = default_run(campaign, first), default_run(campaign, second)
    assert runs[0].pk != runs[1].pk
    assert [len(run.name) for run in runs] == [200, 200]
    assert (runs[0].scenario_id, runs[1].scenario_id) == (first.pk, second.pk)
    assert default_run(campaign, first).pk == runs[0].pk  # the same name again: the same run
    assert run_name("short") == "short"


def test_results_whose_default_run_name_belongs_to_another_scenario_fail_with_the_line(campaign):
    other = Scenario.for_dims(campaign, {"av": "off"})
    Run.objects.create(campaign=campaign, scenario=other, name="av=on")  # someone named a run so
    timings = b"name,started_at,duration_ms,scenario\nlogon,2015-06-01T09:00:00Z,1500,av=on\n"
    upload = ingest_bytes(campaign, timings, filename="t.csv", host="FS01", kind="timings")
    assert upload.status == "failed" and upload.rows == 0
    assert upload.error["message"] == "run 'av=on' already belongs to scenario 'av=off', not 'av=on'"
    assert upload.error["line"] == 2

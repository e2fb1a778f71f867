"""Accepting an upload: the scenario, run and host a process remembers, and what happens when they go."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from tests.factories import make_campaign
from webapp.core import placements, rawstore
from webapp.core.models import Host, Run, Scenario, Upload
from webapp.core.upload_meta import UploadMeta
from webapp.core.uploads import accept

pytestmark = pytest.mark.django_db(transaction=True)

META = UploadMeta(filename="t.json", scenario={"av": "on", "disk_type": "ssd"}, host="FS01", run="r1")


def placed(upload: Upload) -> tuple[int, int]:
    """The upload's scenario and run ids (both set by accept)."""
    assert upload.scenario_id is not None and upload.run_id is not None
    return upload.scenario_id, upload.run_id


def statements(queries: CaptureQueriesContext) -> list[str]:
    return [q["sql"].split()[0] for q in queries.captured_queries]


def test_a_second_upload_to_the_same_place_costs_one_insert_and_the_queued_mark():
    campaign = make_campaign()
    first, duplicate = accept(campaign, rawstore.save_bytes(b"first"), META)
    assert duplicate is False
    with CaptureQueriesContext(connection) as queries:
        second, duplicate = accept(campaign, rawstore.save_bytes(b"second"), META)
    assert duplicate is False
    assert statements(queries) == ["INSERT", "UPDATE"]  # the row, then queued once the task is sent
    assert (second.scenario_id, second.run_id, second.host_id) == (
        first.scenario_id,
        first.run_id,
        first.host_id,
    )
    assert Scenario.objects.filter(campaign=campaign).count() == 1
    assert Run.objects.get(uploads=second).name == "r1"
    assert Host.objects.get(uploads=second).name == "FS01"


def test_the_same_bytes_to_a_remembered_place_are_found_as_a_duplicate():
    campaign = make_campaign()
    first, _ = accept(campaign, rawstore.save_bytes(b"same bytes"), META)
    again, duplicate = accept(campaign, rawstore.save_bytes(b"same bytes"), META)
    assert duplicate is True
    assert again.pk == first.pk
    assert Upload.objects.filter(campaign=campaign).count() == 1


def test_a_remembered_run_that_was_deleted_is_resolved_again():
    campaign = make_campaign()
    first, _ = accept(campaign, rawstore.save_bytes(b"before"), META)
    first_scenario, first_run = placed(first)
    Run.objects.filter(pk=first_run).delete()  # the first upload keeps its rows, run unset
    Scenario.objects.filter(pk=first_scenario).delete()
    second, duplicate = accept(campaign, rawstore.save_bytes(b"after"), META)
    assert duplicate is False
    second_scenario, second_run = placed(second)
    run = Run.objects.get(pk=second_run)
    assert run.pk != first_run
    assert (run.name, run.scenario_id) == ("r1", second_scenario)
    assert Scenario.objects.get(pk=second_scenario).av == "on"
    first.refresh_from_db()
    assert (first.run_id, first.scenario_id) == (None, None)


def test_inside_a_transaction_nothing_remembered_is_used():
    campaign = make_campaign()
    first, _ = accept(campaign, rawstore.save_bytes(b"outside"), META)
    assert placements.is_remembered(campaign, META)
    with transaction.atomic():
        Run.objects.filter(pk=placed(first)[1]).delete()
        assert not placements.is_remembered(campaign, META)
        inside, _ = accept(campaign, rawstore.save_bytes(b"inside"), META)
    assert Run.objects.filter(pk=placed(inside)[1]).exists()
    assert inside.run_id != first.run_id


def test_a_named_run_of_another_scenario_is_refused_every_time():
    from webapp.core.runs import RunConflict

    campaign = make_campaign()
    accept(campaign, rawstore.save_bytes(b"one"), META)
    other = UploadMeta(filename="t.json", scenario={"av": "off"}, host="FS01", run="r1")
    for data in (b"two", b"three"):
        with pytest.raises(RunConflict, match="already belongs to scenario"):
            accept(campaign, rawstore.save_bytes(data), other)
    assert Upload.objects.filter(campaign=campaign).count() == 1

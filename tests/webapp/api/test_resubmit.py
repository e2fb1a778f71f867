"""An upload is fixed by sending the same bytes again with what its error asked for, or a new placement.

The real robocopy log from a Windows machine carries local wall-clock times
and no offset: without ``timezone`` it fails and says so; the same bytes with
``timezone`` are re-processed (202), not answered with the old failure.
"""

from __future__ import annotations

import io

import pytest

from tests.paths import FIXTURES
from webapp.core.models import Upload
from workers.tasks import ingest_upload

pytestmark = pytest.mark.django_db

# "Started : Saturday, May 30, 2026 12:27:10 PM" -- local time of the machine that copied.
LOG = FIXTURES / "robocopy" / "andrew_robocopy_utf16_NFL.log"


def send(client, token, campaign, **fields):
    file = io.BytesIO(LOG.read_bytes())
    file.name = LOG.name
    body = {"file": file, "campaign": campaign.slug, "host": "CLIENT01", **fields}
    return client.post("/api/v1/uploads", body, HTTP_AUTHORIZATION=f"Bearer {token}")


def status_of(client, token, upload_id):
    return client.get(f"/api/v1/uploads/{upload_id}", HTTP_AUTHORIZATION=f"Bearer {token}").json()


def first_measurement_time(client, token, upload_id) -> str:
    page = client.get(f"/api/v1/uploads/{upload_id}/data", HTTP_AUTHORIZATION=f"Bearer {token}").json()
    times = {row["time"] for row in page["results"] if row["type"] == "measurement"}
    assert times, page
    return min(times)


def test_a_log_without_timezone_fails_and_the_same_bytes_with_timezone_are_processed(client, agent):
    token, campaign = agent
    first = send(client, token, campaign)
    assert first.status_code == 202, first.content
    upload_id = first.json()["id"]
    ingest_upload.apply(args=(upload_id,))
    failed = status_of(client, token, upload_id)
    assert failed["status"] == "failed" and failed["rows"] == 0
    assert "upload it again with `timezone`" in failed["error"]["message"]

    again = send(client, token, campaign, timezone="Europe/Berlin")
    assert again.status_code == 202, again.content
    body = again.json()
    assert body["id"] == upload_id and body["duplicate"] is False
    assert body["status"] in ("received", "queued") and body["error"] is None
    upload = Upload.objects.get(pk=upload_id)
    assert upload.timezone == "Europe/Berlin" and upload.attempts == 0

    ingest_upload.apply(args=(upload_id,))
    stored = status_of(client, token, upload_id)
    assert stored["status"] == "stored" and stored["error"] is None and stored["rows"] > 0
    # 12:27:10 in Berlin on 30 May (CEST, UTC+2) is 10:27:10 UTC.
    assert first_measurement_time(client, token, upload_id) == "2026-05-30T10:27:10+00:00"
    assert Upload.objects.filter(campaign=campaign).count() == 1


def test_the_same_bytes_with_the_same_metadata_stay_a_duplicate_of_the_failure(client, agent):
    token, campaign = agent
    upload_id = send(client, token, campaign).json()["id"]
    ingest_upload.apply(args=(upload_id,))
    again = send(client, token, campaign)
    assert again.status_code == 200
    assert again.json()["duplicate"] is True and again.json()["status"] == "failed"


def test_a_stored_upload_sent_again_with_other_metadata_is_refiled_and_its_rows_move(client, agent):
    from webapp.core.models import Run
    from webapp.timeseries.models import Measurement

    token, campaign = agent
    first = send(client, token, campaign, timezone="Asia/Kolkata", run="copy-1")
    upload_id = first.json()["id"]
    assert first.json()["refiled"] is False
    ingest_upload.apply(args=(upload_id,))
    # 12:27:10 in Kolkata (UTC+5:30) is 06:57:10 UTC.
    assert first_measurement_time(client, token, upload_id) == "2026-05-30T06:57:10+00:00"
    rows = status_of(client, token, upload_id)["rows"]
    old_run = Run.objects.get(campaign=campaign, name="copy-1")

    same = send(client, token, campaign, timezone="Asia/Kolkata", run="copy-1")
    assert same.status_code == 200 and same.json()["duplicate"] is True and same.json()["refiled"] is False

    again = send(client, token, campaign, timezone="Europe/Berlin", run="copy-2")
    assert again.status_code == 202, again.content
    assert again.json()["id"] == upload_id
    assert (again.json()["duplicate"], again.json()["refiled"]) == (False, True)
    ingest_upload.apply(args=(upload_id,))
    stored = status_of(client, token, upload_id)
    assert stored["status"] == "stored" and stored["rows"] == rows  # the same rows, moved
    assert first_measurement_time(client, token, upload_id) == "2026-05-30T10:27:10+00:00"
    new_run = Run.objects.get(campaign=campaign, name="copy-2")
    assert stored["runs"] == [new_run.pk]
    assert set(Measurement.objects.filter(upload_id=upload_id).values_list("run_id", flat=True)) == {
        new_run.pk
    }
    assert not Run.objects.filter(pk=old_run.pk).exists()  # nothing holds the old run any more
    assert Upload.objects.filter(campaign=campaign).count() == 1


def test_a_failed_upload_takes_the_new_scenario_and_step_too(client, agent):
    token, campaign = agent
    campaign.dimensions = ["technique"]
    campaign.save(update_fields=["dimensions"])
    upload_id = send(client, token, campaign, scenario='{"technique": "robocopy"}').json()["id"]
    ingest_upload.apply(args=(upload_id,))
    again = send(
        client, token, campaign, scenario='{"technique": "robocopy /MT:16"}', step="40", timezone="UTC"
    )
    assert again.status_code == 202
    upload = Upload.objects.select_related("scenario").get(pk=upload_id)
    assert upload.scenario.dims == {"technique": "robocopy /MT:16"}
    assert (upload.step_users, upload.timezone, upload.status) == (40, "UTC", "received")

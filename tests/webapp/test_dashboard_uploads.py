"""The uploads page lists status and errors, and owners/editors can re-parse or delete."""

from __future__ import annotations

import re

import pytest
from django.db import connection

from tests.factories import make_campaign, make_user
from tests.ingest import ingest_bytes, ingest_path
from tests.paths import FIXTURES
from webapp.core.models import Upload

pytestmark = pytest.mark.django_db

PERFMON = FIXTURES / "perfmon_csv" / "narmadha_DataCollector01_LogicalDisk_IST.csv"


def row_cells(html: str, rows: int) -> list[str]:
    """The text of the right-aligned cells sorted by ``rows`` (whatever else the cell carries)."""
    return re.findall(rf'<td class="num" data-sort-value="{rows}"[^>]*>([^<]*)</td>', html)


def test_the_page_shows_status_parser_rows_and_located_errors(client):
    campaign = make_campaign()
    good = ingest_path(campaign, PERFMON, host="FS01")
    bad = ingest_bytes(
        campaign, PERFMON.read_bytes().replace(b"0.0", b"abc", 1), host="FS01", filename="bad.csv"
    )
    client.force_login(make_user(campaign.project))
    html = client.get(f"/campaigns/{campaign.slug}/uploads/").content.decode()
    assert row_cells(html, good.rows) == [f"{good.rows:,}"] and "perfmon_csv" in html
    assert bad.status == "failed"
    assert f"(line {bad.error['line']}, column {bad.error['column']})" in html


def test_each_upload_says_what_it_was_sent_with(client):
    campaign = make_campaign()
    ingest_path(
        campaign, PERFMON, host="FS01", role="server", scenario={"av": "on"}, step=40, timezone="Asia/Kolkata"
    )
    timings = (
        b'[{"name": "logon", "started_at": "2015-06-01T10:00:00Z", "duration_ms": 1000, "repetition": 1}]'
    )
    ingest_bytes(campaign, timings, host="C1", filename="logon.json", scenario={"av": "off"})
    client.force_login(make_user(campaign.project))
    html = client.get(f"/campaigns/{campaign.slug}/uploads/").content.decode()
    tags = [
        re.sub(r"<[^>]+>", "", tag)  # the step is marked for the display oracle
        for tag in re.findall(r'<span class="muted small upload-tags">(.*?)</span></td>', html)
    ]
    assert tags == ["client · av=off", "server · av=on · step 40 users · Asia/Kolkata"]  # newest first


def test_row_counts_read_with_thousands_separators(client):
    campaign = make_campaign()
    big = ingest_path(
        campaign, FIXTURES / "perfmon_csv" / "rajitharul_perfmon_SriLanka_1.2MB.csv", host="FS02"
    )
    assert big.status == "stored" and big.rows >= 1000
    client.force_login(make_user(campaign.project))
    html = client.get(f"/campaigns/{campaign.slug}/uploads/").content.decode()
    assert row_cells(html, big.rows) == [f"{big.rows:,}"]
    assert "," in f"{big.rows:,}"


def test_an_editor_can_reparse_an_upload(client):
    campaign = make_campaign()
    upload = ingest_path(campaign, PERFMON, host="FS01")
    client.force_login(make_user(campaign.project, role="editor"))
    response = client.post(f"/campaigns/{campaign.slug}/uploads/{upload.pk}/reparse")
    assert response.status_code == 302
    assert Upload.objects.get(pk=upload.pk).status in ("received", "queued")


def test_a_viewer_cannot_and_another_project_sees_nothing(client):
    campaign = make_campaign()
    upload = ingest_path(campaign, PERFMON, host="FS01")
    client.force_login(make_user(campaign.project, role="viewer"))
    assert client.post(f"/campaigns/{campaign.slug}/uploads/{upload.pk}/reparse").status_code == 403
    client.force_login(make_user(make_campaign().project, role="owner"))
    assert client.post(f"/campaigns/{campaign.slug}/uploads/{upload.pk}/delete").status_code == 404
    assert client.get(f"/campaigns/{campaign.slug}/uploads/").status_code == 404


def test_deleting_an_upload_removes_its_rows(client):
    campaign = make_campaign()
    upload = ingest_path(campaign, PERFMON, host="FS01")
    client.force_login(make_user(campaign.project, role="owner"))
    assert client.post(f"/campaigns/{campaign.slug}/uploads/{upload.pk}/delete").status_code == 302
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM counter_sample WHERE upload_id = %s", [upload.pk])
        assert cursor.fetchone()[0] == 0
    assert not Upload.objects.filter(pk=upload.pk).exists()

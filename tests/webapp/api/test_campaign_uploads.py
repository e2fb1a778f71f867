"""``GET /api/v1/campaigns/{slug}/uploads``: the uploads page as JSON, paged, filtered by status and kind (issue 20)."""

from __future__ import annotations

import re

import pytest

from tests.factories import make_campaign, make_token, make_user
from tests.ingest import ingest_bytes, ingest_path, stored_rows
from tests.paths import FIXTURES
from webapp.core.models import Upload

pytestmark = pytest.mark.django_db

PERFMON = FIXTURES / "perfmon_csv" / "narmadha_DataCollector01_LogicalDisk_IST.csv"
TIMINGS = b'[{"name": "logon", "started_at": "2015-06-01T10:00:00Z", "duration_ms": 1000, "repetition": 1}]'


@pytest.fixture
def sent(client):
    """A campaign with a stored and a failed perfmon CSV, a stored timings file and one still queued."""
    campaign = make_campaign()
    good = ingest_path(campaign, PERFMON, host="FS01", role="server", scenario={"av": "on"}, step=40)
    bad = ingest_bytes(
        campaign, PERFMON.read_bytes().replace(b"0.0", b"abc", 1), host="FS01", filename="bad.csv"
    )
    timings = ingest_bytes(campaign, TIMINGS, host="C1", filename="logon.json", scenario={"av": "off"})
    queued = Upload.objects.create(
        campaign=campaign, sha256="c" * 64, size=3, storage_key="test", status="queued", kind="fio_json"
    )
    assert (good.status, bad.status, timings.status) == ("stored", "failed", "stored")
    client.force_login(make_user(campaign.project))
    return campaign, {"good": good, "bad": bad, "timings": timings, "queued": queued}


def page_ids(html: str) -> list[int]:
    body = html.split('aria-label="Uploads"', 1)[1].split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return [int(n) for n in re.findall(r'<tr>\s*<td class="num">(\d+)</td>', body)]


def test_the_list_is_the_page_s_with_the_database_s_counts_and_statuses(client, sent):
    campaign, uploads = sent
    body = client.get(f"/api/v1/campaigns/{campaign.slug}/uploads").json()
    in_db = list(Upload.objects.filter(campaign=campaign).order_by("-received_at", "-pk"))
    assert body["count"] == len(in_db) == 4 and body["next"] is None
    assert [(u["id"], u["status"], u["rows"]) for u in body["results"]] == [
        (u.pk, u.status, u.rows) for u in in_db
    ]
    assert [u["id"] for u in body["results"]] == page_ids(
        client.get(f"/campaigns/{campaign.slug}/uploads/").content.decode()
    )
    good = next(u for u in body["results"] if u["id"] == uploads["good"].pk)
    assert (
        good["rows"] == uploads["good"].rows == stored_rows(uploads["good"].pk) > 200
        and good["parser"] == "perfmon_csv"
    )
    assert (good["host"], good["role"], good["scenario"], good["step_users"]) == (
        "FS01",
        "server",
        {"av": "on"},
        40,
    )
    bad = next(u for u in body["results"] if u["id"] == uploads["bad"].pk)
    assert bad["error"]["line"] == uploads["bad"].error["line"] and bad["rows"] == 0


def test_status_and_kind_filter_as_on_the_page(client, sent):
    campaign, uploads = sent
    address = f"/api/v1/campaigns/{campaign.slug}/uploads"
    for query, expected in (
        ("status=stored", [uploads["timings"].pk, uploads["good"].pk]),
        ("status=failed", [uploads["bad"].pk]),
        ("status=queued", [uploads["queued"].pk]),
        ("status=parsing", []),
        (
            "kind=perfmon_csv",
            [uploads["bad"].pk, uploads["good"].pk],
        ),  # requested auto, parsed as perfmon_csv
        ("kind=timings", [uploads["timings"].pk]),
        ("kind=fio_json", [uploads["queued"].pk]),
        ("status=stored&kind=perfmon_csv", [uploads["good"].pk]),
    ):
        body = client.get(f"{address}?{query}").json()
        assert [u["id"] for u in body["results"]] == expected, query
        assert body["count"] == len(expected)
        html = client.get(f"/campaigns/{campaign.slug}/uploads/?{query}").content.decode()
        assert page_ids(html) == expected, query
        assert f"{len(expected)} upload" in html
    stored = Upload.objects.filter(campaign=campaign, status="stored").count()
    assert client.get(f"{address}?status=stored").json()["count"] == stored == 2


def test_paging_walks_every_upload_once(client, sent):
    campaign, _ = sent
    seen: list[int] = []
    address: str | None = f"/api/v1/campaigns/{campaign.slug}/uploads?limit=3"
    pages = 0
    while address:
        body = client.get(address).json()
        assert body["count"] == 4 and body["limit"] == 3
        seen += [u["id"] for u in body["results"]]
        address = body["next"]
        pages += 1
    assert pages == 2
    assert seen == list(
        Upload.objects.filter(campaign=campaign).order_by("-received_at", "-pk").values_list("pk", flat=True)
    )
    second = client.get(f"/api/v1/campaigns/{campaign.slug}/uploads?status=stored&limit=1").json()
    assert second["next"].endswith(
        f"/api/v1/campaigns/{campaign.slug}/uploads?status=stored&offset=1&limit=1"
    )
    last = client.get(second["next"]).json()
    assert (last["offset"], len(last["results"]), last["next"]) == (1, 1, None)


def test_bad_filters_and_pages_are_400_a_foreign_campaign_404_and_no_credentials_401(client, sent):
    campaign, _ = sent
    address = f"/api/v1/campaigns/{campaign.slug}/uploads"
    for query, code in (
        ("status=done", "invalid_status"),
        ("kind=excel", "unknown_kind"),
        ("offset=-1", "invalid_offset"),
        ("limit=0", "invalid_limit"),
        ("limit=1001", "invalid_limit"),
    ):
        response = client.get(f"{address}?{query}")
        assert response.status_code == 400, query
        assert response.json()["error"]["code"] == code, query
    html = client.get(f"/campaigns/{campaign.slug}/uploads/?status=done").content.decode()
    assert "status must be one of received, queued, parsing, stored, failed, not &#x27;done&#x27;" in html
    assert len(page_ids(html)) == 4  # the page names the refused filter and shows every upload
    foreign = make_campaign()
    make_user(foreign.project)
    response = client.get(f"/api/v1/campaigns/{foreign.slug}/uploads")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    _, token = make_token(foreign.project)
    response = client.get(address, HTTP_AUTHORIZATION=f"Bearer {token}")
    assert response.status_code == 404  # the token's project is not the campaign's
    client.logout()
    response = client.get(address)
    assert response.status_code == 401 and response.json()["error"]["code"] == "unauthorized"

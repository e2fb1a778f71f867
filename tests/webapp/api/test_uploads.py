"""POST/GET /api/v1/uploads: raw bytes first, 202 + status URL, duplicates, limits, errors."""

from __future__ import annotations

import gzip
import hashlib
import io
import json

import pytest
from django.core.files.storage import storages
from django.db import connection
from django.test.client import encode_multipart

from tests.factories import make_campaign, make_token
from tests.paths import FIXTURES
from webapp.core.models import Run, Upload
from webapp.core.runs import is_default_run
from workers.tasks import ingest_upload

pytestmark = pytest.mark.django_db

PERFMON = FIXTURES / "perfmon_csv" / "narmadha_DataCollector01_LogicalDisk_IST.csv"


def post_file(client, token, campaign, data: bytes, name="trace.csv", **fields):
    body = {"file": io.BytesIO(data), "campaign": campaign.slug, **fields}
    body["file"].name = name
    return client.post("/api/v1/uploads", body, HTTP_AUTHORIZATION=f"Bearer {token}")


def test_it_stores_the_raw_file_and_answers_202_with_a_status_url(client, agent):
    token, campaign = agent
    data = PERFMON.read_bytes()
    response = post_file(
        client,
        token,
        campaign,
        data,
        host="FS01",
        role="server",
        scenario=json.dumps({"smb_dialect": "3.02", "av": "off"}),
        step="100",
    )
    assert response.status_code == 202, response.content
    body = response.json()
    assert body["status"] in ("received", "queued")
    assert body["status_url"].endswith(f"/api/v1/uploads/{body['id']}")
    assert body["duplicate"] is False
    upload = Upload.objects.get(pk=body["id"])
    assert upload.sha256 == hashlib.sha256(data).hexdigest()
    assert upload.size == len(data)
    assert upload.step_users == 100 and upload.host.name == "FS01" and upload.role == "server"
    assert upload.scenario.dims == {"av": "off", "smb_dialect": "3.02"}
    with storages["raw"].open(upload.storage_key, "rb") as raw:
        assert raw.read() == data
    assert "trace.csv" not in upload.storage_key  # never a user-controlled name on disk


def test_the_same_bytes_for_the_same_campaign_are_stored_once(client, agent):
    token, campaign = agent
    first = post_file(client, token, campaign, b"name,started_at,duration_ms\nx,2015-01-01T00:00:00Z,5\n")
    again = post_file(
        client,
        token,
        campaign,
        b"name,started_at,duration_ms\nx,2015-01-01T00:00:00Z,5\n",
        name="other-name.csv",
    )
    assert first.status_code == 202 and again.status_code == 200
    assert again.json()["duplicate"] is True and again.json()["id"] == first.json()["id"]
    assert Upload.objects.filter(campaign=campaign).count() == 1


def test_it_accepts_a_gzip_encoded_multipart_body(client, agent):
    token, campaign = agent
    data = PERFMON.read_bytes()
    content = encode_multipart(
        "BoUnDaRy", {"file": io.BytesIO(data), "campaign": campaign.slug, "host": "FS02"}
    )
    response = client.post(
        "/api/v1/uploads",
        gzip.compress(content),
        content_type="multipart/form-data; boundary=BoUnDaRy",
        HTTP_CONTENT_ENCODING="gzip",
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )
    assert response.status_code == 202, response.content
    assert Upload.objects.get(pk=response.json()["id"]).sha256 == hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize(
    "path", [PERFMON, FIXTURES / "eventlog_logon" / "aaronthopliss_GroupPolicy_Operational_small.evtx"]
)
def test_a_file_sent_gzipped_is_kept_compressed_and_parses_as_sent_plain(client, agent, path):
    """Issue 26 item 7: raw bytes kept as compressed as they came (the event log is read by seeking).

    The two copies go to two projects: a log that names its machine is one host's series per project.
    """
    token, campaign = agent
    other = make_campaign()
    _, other_token = make_token(other.project)
    data = path.read_bytes()
    plain = post_file(client, token, campaign, data, name=path.name).json()["id"]
    content = encode_multipart("BoUnDaRy", {"file": io.BytesIO(data), "campaign": other.slug})
    response = client.post(
        "/api/v1/uploads",
        gzip.compress(content, compresslevel=6),
        content_type="multipart/form-data; boundary=BoUnDaRy",
        HTTP_CONTENT_ENCODING="gzip",
        HTTP_AUTHORIZATION=f"Bearer {other_token}",
    )
    assert response.status_code == 202, response.content
    zipped = response.json()["id"]
    for upload_id in (plain, zipped):
        ingest_upload.apply(args=(upload_id,))
    plain_upload, zipped_upload = Upload.objects.get(pk=plain), Upload.objects.get(pk=zipped)
    sha = hashlib.sha256(data).hexdigest()
    assert plain_upload.storage_key == f"raw/{sha[:2]}/{sha}"
    assert zipped_upload.storage_key == f"raw/{sha[:2]}/{sha}.gz"
    assert zipped_upload.sha256 == sha and zipped_upload.size == len(data)
    raw = storages["raw"]
    assert raw.size(zipped_upload.storage_key) < len(data) / 2 <= raw.size(plain_upload.storage_key) / 2
    assert (plain_upload.status, zipped_upload.status) == ("stored", "stored"), zipped_upload.error
    assert zipped_upload.rows == plain_upload.rows > 0


def test_it_refuses_an_upload_over_the_size_limit_with_413(client, agent, settings):
    token, campaign = agent
    settings.MAX_UPLOAD_SIZE = 1000
    response = post_file(client, token, campaign, b"x" * 5000)
    assert response.status_code == 413
    assert "limit of 1,000 bytes" in response.json()["error"]["message"]
    assert not Upload.objects.exists()


def test_it_refuses_a_gzip_bomb_with_413(client, agent, settings):
    token, campaign = agent
    settings.MAX_DECOMPRESSED_SIZE = 100_000
    content = encode_multipart("B", {"file": io.BytesIO(b"0" * 1_000_000), "campaign": campaign.slug})
    response = client.post(
        "/api/v1/uploads",
        gzip.compress(content),
        content_type="multipart/form-data; boundary=B",
        HTTP_CONTENT_ENCODING="gzip",
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )
    assert response.status_code == 413
    assert not Upload.objects.exists()


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"kind": "no-such-parser"}, "unknown_kind"),
        ({"scenario": "{not json"}, "invalid_scenario"),
        ({"role": "router"}, "invalid_role"),
        ({"timezone": "Mars/Olympus"}, "invalid_timezone"),
    ],
)
def test_it_rejects_bad_fields_with_a_clear_400(client, agent, fields, code):
    token, campaign = agent
    response = post_file(client, token, campaign, b"data", **fields)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == code
    assert not Upload.objects.exists()


def test_it_answers_401_without_a_token_and_404_for_another_projects_campaign(client, agent):
    token, campaign = agent
    assert client.post("/api/v1/uploads", {"campaign": campaign.slug}).status_code == 401
    from tests.factories import make_campaign

    other = make_campaign()
    response = post_file(client, token, other, b"data")
    assert response.status_code == 404


def test_status_and_data_show_what_the_worker_extracted(client, agent):
    token, campaign = agent
    response = post_file(client, token, campaign, PERFMON.read_bytes(), host="FS01", role="server")
    upload_id = response.json()["id"]
    ingest_upload.apply(args=(upload_id,))
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    status = client.get(f"/api/v1/uploads/{upload_id}", **auth).json()
    assert status["status"] == "stored" and status["parser"] == "perfmon_csv" and status["error"] is None
    total = status["rows"]
    assert total > 0
    page = client.get(f"/api/v1/uploads/{upload_id}/data?limit=7", **auth).json()
    assert page["count"] == total and len(page["results"]) == 7 and page["next"]
    # The machine the log names (\\IMPC3116\...), not the uploader (FS01).
    assert page["results"][0]["type"] == "sample" and page["results"][0]["host"] == "IMPC3116"
    seen = []
    url = f"/api/v1/uploads/{upload_id}/data?limit=50"
    while url:
        body = client.get(url.replace("http://testserver", ""), **auth).json()
        seen += body["results"]
        url = body["next"]
    assert len(seen) == total


def test_a_failed_upload_reports_message_line_and_parser(client, agent):
    token, campaign = agent
    bad = PERFMON.read_bytes().replace(b'"', b"", 0)
    lines = bad.split(b"\n")
    lines[3] = lines[3].replace(b",", b',"oops",', 1)  # one extra cell on line 4
    response = post_file(client, token, campaign, b"\n".join(lines), host="FS01", role="server")
    upload_id = response.json()["id"]
    ingest_upload.apply(args=(upload_id,))
    status = client.get(f"/api/v1/uploads/{upload_id}", HTTP_AUTHORIZATION=f"Bearer {token}").json()
    assert status["status"] == "failed"
    assert status["error"]["line"] == 4
    assert status["error"]["parser"] == "perfmon_csv"
    assert status["rows"] == 0


def test_the_openapi_document_describes_the_contract(client):
    document = client.get("/api/v1/openapi.json").json()
    paths = document["paths"]
    for path in (
        "/api/v1/uploads",
        "/api/v1/uploads/{upload_id}",
        "/api/v1/uploads/{upload_id}/data",
        "/api/v1/samples",
        "/api/v1/timings",
        "/api/v1/runs/{run_id}/steps",
    ):
        assert path in paths, path
    form = paths["/api/v1/uploads"]["post"]["requestBody"]["content"]["multipart/form-data"]["schema"]
    assert {"file", "campaign", "kind", "scenario", "host", "role", "step", "timezone"} <= set(
        form.get("properties", {})
        or document["components"]["schemas"][form["$ref"].split("/")[-1]]["properties"]
    )


def test_a_report_without_a_clock_time_takes_started_at_or_the_arrival_time(client, agent):
    token, campaign = agent
    path = FIXTURES / "diskspd_txt" / "basilkisel_azure_A2_single.txt"
    dated = post_file(
        client, token, campaign, path.read_bytes(), started_at="2015-03-02T09:00:00Z", host="VM1"
    )
    ingest_upload.apply(args=(dated.json()["id"],))
    upload = Upload.objects.get(pk=dated.json()["id"])
    assert upload.status == "stored", upload.error
    # The report is its own execution run (not the scenario's default run, which is not left
    # behind empty: the upload points at its own run), timed from started_at.
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT run_id, min(time) FROM measurement WHERE upload_id = %s GROUP BY 1", [upload.pk]
        )
        (run_id, first), *others = cursor.fetchall()
    assert others == [] and run_id == upload.run_id
    assert not is_default_run(Run.objects.get(pk=run_id))
    assert list(Run.objects.filter(campaign=campaign)) == [Run.objects.get(pk=run_id)]
    assert first.isoformat() == "2015-03-02T09:00:00+00:00"
    assert Run.objects.get(pk=run_id).started_at.isoformat() == "2015-03-02T09:00:00+00:00"
    bad = post_file(client, token, campaign, b"x", started_at="yesterday")
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_started_at"


def test_a_multipart_body_django_cannot_split_gets_a_400_not_a_500(client, agent):
    token, campaign = agent
    no_boundary = client.post(
        "/api/v1/uploads",
        b"--x\r\n",
        content_type="multipart/form-data",
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )
    huge_name = post_file(client, token, campaign, b"data", name="a" * 100_000)
    for response in (no_boundary, huge_name):
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "invalid_multipart"
    assert not Upload.objects.exists()


def test_an_undeclared_scenario_dimension_is_refused_naming_the_closest(client, agent):
    token, campaign = agent  # the campaign declares server_os, smb_dialect, disk_type and av
    response = post_file(client, token, campaign, PERFMON.read_bytes(), scenario='{"smb_dialet": "3.02"}')
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "unknown_dimension"
    assert "'smb_dialet'" in error["message"] and "Did you mean 'smb_dialect'?" in error["message"]
    assert "server_os, smb_dialect, disk_type, av" in error["message"]
    assert not Upload.objects.exists()
    good = post_file(client, token, campaign, PERFMON.read_bytes(), scenario='{"smb_dialect": "3.02"}')
    assert good.status_code == 202
    for path, body in (
        (
            "/api/v1/timings",
            {"timings": [{"name": "logon", "started_at": "2024-01-01T00:00:00Z", "duration_ms": 5}]},
        ),
        ("/api/v1/runs", {"name": "r1"}),
    ):
        response = client.post(
            path,
            json.dumps({"campaign": campaign.slug, "scenario": {"AV": "on"}, **body}),
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {token}",
        )
        assert response.status_code == 400, path
        assert "Did you mean 'av'?" in response.json()["error"]["message"]


def test_a_report_dated_by_its_arrival_says_time_not_recorded(client, agent):
    from tests.factories import make_user

    token, campaign = agent
    path = FIXTURES / "diskspd_txt" / "basilkisel_azure_A2_single.txt"  # DiskSpd 2.0.x: no start time
    undated = post_file(client, token, campaign, path.read_bytes(), host="VM1", run="undated")
    ingest_upload.apply(args=(undated.json()["id"],))
    dated = post_file(
        client, token, campaign, path.read_bytes(), host="VM2", run="dated", started_at="2015-03-02T09:00:00Z"
    )
    ingest_upload.apply(args=(dated.json()["id"],))
    runs = {r.name: r for r in Run.objects.filter(campaign=campaign)}
    assert runs["undated"].attributes["time_recorded"] == "false"
    assert "time_recorded" not in runs["dated"].attributes

    client.force_login(make_user(campaign.project))
    page = client.get(f"/campaigns/{campaign.slug}/").content.decode()
    undated_row = page[page.index("<td>undated</td>") :].split("</tr>")[0]
    dated_row = page[page.index("<td>dated</td>") :].split("</tr>")[0]
    assert "time not recorded" in undated_row
    assert "2015-03-02 09:00:00" in dated_row and "time not recorded" not in dated_row

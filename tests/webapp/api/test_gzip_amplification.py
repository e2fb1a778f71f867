"""Issue 26 item 7: a gzip body is inflated only for a caller who may add data, and only so far.

Before the fix any token or signed-in account got its body inflated (to
HEADROOM_MAX_DECOMPRESSED_SIZE, 4 GiB) before membership or CSRF were looked
at, and 1 MiB of gzip'd newlines was answered 202 and kept as 1 GiB. Now the
body stays unread (``tell() == 0``) until write access is known, and a body
that inflates past HEADROOM_MAX_GZIP_RATIO times what was read is refused
after reading a small part of it. Real result files, gzipped at level 9, all
pass the ratio (measured on the shared fixtures).
"""

from __future__ import annotations

import gzip
import io
import json
import zlib

import pytest
from django.test import Client
from django.test.client import encode_multipart

from tests.factories import make_campaign, make_user
from tests.paths import FIXTURES
from tests.webapp.api.test_gzip_request import BOUNDARY, MULTIPART, assert_json_refusal, post
from webapp.core import rawstore
from webapp.core.models import Upload

pytestmark = pytest.mark.django_db
MiB = 1024 * 1024


def newlines_gzip(inflated: int) -> bytes:
    """``inflated`` bytes of newlines, gzip'd (about 1000x) without holding them."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    out = io.BytesIO()
    for _ in range(inflated // MiB):
        out.write(packer.compress(b"\n" * MiB))
    out.write(packer.flush())
    return out.getvalue()


def gzip_multipart(campaign: str, inflated: int) -> bytes:
    head = encode_multipart(BOUNDARY, {"campaign": campaign, "file": io.BytesIO(b"x")})
    opening, closing = head.split(b"\r\n\r\nx", 1)
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    out = io.BytesIO()
    out.write(packer.compress(opening + b"\r\n\r\n"))
    for _ in range(inflated // MiB):
        out.write(packer.compress(b"\n" * MiB))
    out.write(packer.compress(closing))
    out.write(packer.flush())
    return out.getvalue()


def test_a_signed_in_account_without_membership_gets_403_with_the_body_unread(campaign):
    client = Client()
    client.force_login(make_user())
    response, body = post(client, "/api/v1/uploads", gzip_multipart(campaign.slug, 8 * MiB), MULTIPART)
    assert assert_json_refusal(response, 403)["code"] == "read_only"
    assert body.tell() == 0
    assert not Upload.objects.exists()


def test_a_viewer_gets_403_with_the_body_unread(campaign):
    client = Client()
    client.force_login(make_user(campaign.project, role="viewer"))
    response, body = post(client, "/api/v1/samples", gzip.compress(b'{"campaign": "x"}'), "application/json")
    assert assert_json_refusal(response, 403)["code"] == "read_only"
    assert body.tell() == 0


def test_a_session_without_a_csrf_token_is_refused_before_the_body_is_inflated(campaign):
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_user(campaign.project, role="editor"))
    # With a CSRF cookie and no X-CSRFToken header, Django looks for the form's token in the body.
    client.cookies["csrftoken"] = "a" * 32
    response, body = post(client, "/api/v1/uploads", gzip_multipart(campaign.slug, 8 * MiB), MULTIPART)
    assert response.status_code == 403, response.content
    assert body.tell() == 0
    assert not Upload.objects.exists()


def test_a_campaign_named_in_the_query_is_checked_before_the_body_is_read(agent):
    token, campaign = agent
    other = make_campaign()  # another project's: the token may not even see it
    data = gzip_multipart(campaign.slug, 8 * MiB)
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    response, body = post(Client(), f"/api/v1/uploads?campaign={other.slug}", data, MULTIPART, **auth)
    assert assert_json_refusal(response, 404)["code"] == "not_found"
    assert body.tell() == 0


def test_a_campaign_in_the_query_must_match_the_form_field(agent):
    token, campaign = agent
    content = encode_multipart(
        BOUNDARY, {"campaign": campaign.slug, "file": io.BytesIO(b"name,duration_ms\nx,1\n")}
    )
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    path = f"/api/v1/uploads?campaign={campaign.slug}"
    response, _ = post(Client(), path, gzip.compress(content), MULTIPART, **auth)
    assert response.status_code == 202, response.content
    other = make_campaign(project=campaign.project)
    response, _ = post(
        Client(), f"/api/v1/uploads?campaign={other.slug}", gzip.compress(content), MULTIPART, **auth
    )
    assert assert_json_refusal(response, 400)["code"] == "campaign_mismatch"
    assert Upload.objects.count() == 1


def test_a_multipart_upload_of_gzipped_newlines_is_refused_past_the_ratio(agent):
    token, campaign = agent
    data = gzip_multipart(campaign.slug, 256 * MiB)  # about 256 KiB sent
    response, body = post(Client(), "/api/v1/uploads", data, MULTIPART, HTTP_AUTHORIZATION=f"Bearer {token}")
    error = assert_json_refusal(response, 413)
    assert error["code"] == "too_large" and "100x" in str(error["message"]), error
    assert not Upload.objects.exists()
    # 1 MiB floor + 100 x what was read: refused long before the end of the body.
    assert body.tell() < len(data)


def test_a_json_batch_of_gzipped_whitespace_is_refused_past_the_ratio(agent):
    token, campaign = agent
    sample = {"time": "2024-01-01T00:00:00Z", "counter": r"\\FS01\Memory\Available MBytes", "value": 1}
    head = json.dumps({"campaign": campaign.slug, "host": "FS01", "samples": [sample]})[:-2].encode()
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    data = packer.compress(head) + b"".join(packer.compress(b" " * MiB) for _ in range(24))
    data += packer.compress(b"]}") + packer.flush()
    response, _ = post(
        Client(), "/api/v1/samples", data, "application/json", HTTP_AUTHORIZATION=f"Bearer {token}"
    )
    error = assert_json_refusal(response, 413)
    assert "100x" in str(error["message"]), error
    assert not Upload.objects.exists()


def test_gzipped_newlines_never_reach_the_raw_store():
    with pytest.raises(rawstore.TooCompressed):
        for _ in rawstore.gunzip_chunks(io.BytesIO(newlines_gzip(16 * MiB)), 4 * 1024**3):
            pass


def test_every_real_fixture_gzipped_at_level_9_passes_the_ratio():
    files = [path for path in FIXTURES.rglob("*") if path.is_file() and path.stat().st_size > 4096]
    assert len(files) >= 20
    worst = 0.0
    for path in files:
        content = path.read_bytes()
        packed = gzip.compress(content, 9)
        worst = max(worst, len(content) / len(packed))
        assert b"".join(rawstore.gunzip_chunks(io.BytesIO(packed), 4 * 1024**3)) == content
    # The cap (100x) leaves room above the most compressible real file.
    assert 10 < worst < 50, worst

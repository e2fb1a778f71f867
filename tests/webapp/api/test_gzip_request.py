"""Compressed request bodies: read only on the upload endpoints, only for an authenticated caller.

The body is a counting stream handed to Django as ``wsgi.input``: a refusal
must leave it unread (``tell() == 0``), so nothing was inflated, parsed or
spooled for an anonymous caller. Most bodies here are not even valid gzip: a
server that looked at them would answer 400 ``bad_gzip`` instead.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import random
from typing import Any

import pytest
from django.test import Client
from django.test.client import encode_multipart

from tests.factories import make_user
from webapp.core.models import Upload

# Long enough that random file bytes never contain it (with "B", a 3 MB random
# file held "--B" about one run in six and the parser split the file there).
BOUNDARY = "HeadroomTestBoundary-5e1f9c0b"
MULTIPART = f"multipart/form-data; boundary={BOUNDARY}"
pytestmark = pytest.mark.django_db

NOT_GZIP = b'--B\r\nContent-Disposition: form-data; name="file"; filename="x"\r\n\r\n' + b"x" * 200_000


class Body(io.BytesIO):
    """A request body that remembers how far the server read it."""


def post(client: Client, path: str, data: bytes, content_type: str, **extra: str) -> tuple[Any, Body]:
    body = Body(data)
    environ: dict[str, Any] = {"HTTP_CONTENT_ENCODING": "gzip", "wsgi.input": body, **extra}
    response = client.generic("POST", path, data, content_type=content_type, **environ)
    return response, body


def assert_json_refusal(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert error["code"] and error["message"]
    return error


@pytest.mark.parametrize("path", ["/healthz", "/accounts/login/", "/api/v1/runs", "/api/v1/uploads/1", "/"])
def test_a_gzip_body_to_any_other_path_is_refused_with_415_unread(client, path):
    response, body = post(client, path, NOT_GZIP, MULTIPART)
    error = assert_json_refusal(response, 415)
    assert error["code"] == "unsupported_encoding"
    assert "/api/v1/uploads" in error["message"]
    assert body.tell() == 0


@pytest.mark.parametrize(
    "credentials",
    [
        {},
        {"HTTP_AUTHORIZATION": "Bearer hr_not-a-real-token"},
        # A forged CSRF cookie makes Django's CSRF check look for a form token in the body.
        {"HTTP_COOKIE": "csrftoken=" + "a" * 32},
        {"HTTP_COOKIE": "csrftoken=" + "a" * 32, "HTTP_X_CSRFTOKEN": "a" * 32},
    ],
    ids=["no-credentials", "wrong-token", "forged-csrf-cookie", "forged-csrf-cookie-and-header"],
)
@pytest.mark.parametrize("path", ["/api/v1/uploads", "/api/v1/samples", "/api/v1/timings"])
def test_an_anonymous_gzip_upload_is_refused_before_its_body_is_read(path, credentials):
    client = Client(enforce_csrf_checks=True)  # as in production
    response, body = post(client, path, NOT_GZIP, MULTIPART, **credentials)
    assert response.status_code in (401, 403), response.content
    assert_json_refusal(response, response.status_code)
    assert body.tell() == 0
    assert not Upload.objects.exists()


def test_a_gzip_upload_from_a_signed_in_editor_is_inflated_after_authentication(campaign):
    user = make_user(campaign.project, role="editor")
    client = Client()
    client.force_login(user)
    data = b"name,started_at,duration_ms\nlogon,2015-01-01T00:00:00Z,5\n"
    content = encode_multipart(BOUNDARY, {"file": io.BytesIO(data), "campaign": campaign.slug})
    response, body = post(client, "/api/v1/uploads", gzip.compress(content), MULTIPART)
    assert response.status_code == 202, response.content
    assert Upload.objects.get(pk=response.json()["id"]).sha256 == hashlib.sha256(data).hexdigest()
    assert body.tell() == len(body.getvalue())


@pytest.fixture
def upload_tmp(settings, tmp_path):
    """Django's multipart temporary files go here, so the test can see what is left."""
    settings.FILE_UPLOAD_TEMP_DIR = str(tmp_path)
    return tmp_path


def test_a_gzip_bomb_past_the_limit_leaves_no_temporary_file(client, agent, settings, upload_tmp):
    token, campaign = agent
    settings.MAX_DECOMPRESSED_SIZE = 3 * 1024 * 1024  # past the 1 MiB kept in memory: spooled to disk
    settings.MAX_GZIP_RATIO = 0  # zeros gzip 1000x: this checks the absolute limit behind the ratio
    content = encode_multipart(BOUNDARY, {"campaign": campaign.slug, "file": io.BytesIO(b"0" * 10_000_000)})
    response, _ = post(
        client,
        "/api/v1/uploads",
        gzip.compress(content),
        MULTIPART,
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )
    error = assert_json_refusal(response, 413)
    assert error["code"] == "too_large" and "3,145,728 bytes" in str(error["message"])
    assert os.listdir(upload_tmp) == []
    assert not Upload.objects.exists()


def test_a_truncated_gzip_upload_gets_400_and_leaves_no_temporary_file(client, agent, upload_tmp):
    token, campaign = agent
    content = encode_multipart(
        BOUNDARY, {"campaign": campaign.slug, "file": io.BytesIO(random.Random(3).randbytes(3_000_000))}
    )
    response, _ = post(
        client,
        "/api/v1/uploads",
        gzip.compress(content)[:-5000],
        MULTIPART,
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )
    error = assert_json_refusal(response, 400)
    assert error["code"] == "bad_gzip" and "truncated" in str(error["message"])
    assert os.listdir(upload_tmp) == []
    assert not Upload.objects.exists()


def test_a_finished_upload_leaves_no_temporary_file(client, agent, upload_tmp):
    token, campaign = agent
    data = random.Random(2).randbytes(2_000_000)
    content = encode_multipart(
        BOUNDARY, {"campaign": campaign.slug, "file": io.BytesIO(data), "kind": "timings"}
    )
    response, _ = post(
        client,
        "/api/v1/uploads",
        gzip.compress(content),
        MULTIPART,
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )
    assert response.status_code == 202, response.content
    assert Upload.objects.get().size == len(data)
    assert os.listdir(upload_tmp) == []

"""Paths under /api/ answer JSON even where no API view runs: an unknown endpoint, a failure before the view."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_an_unknown_api_path_is_a_json_404():
    response = Client().get("/api/v1/no-such-endpoint")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")
    error = response.json()["error"]
    assert error["code"] == "not_found" and "/api/v1/no-such-endpoint" in error["message"]


def test_an_unknown_page_outside_the_api_stays_html():
    response = Client().get("/no-such-page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


def test_a_failure_outside_an_api_view_is_a_json_500(settings):
    # A real failure in the URL resolver's way: a middleware that raises, placed first.
    settings.MIDDLEWARE = ["tests.webapp.api.failing_middleware.Fail", *settings.MIDDLEWARE]
    client = Client(raise_request_exception=False)
    api = client.get("/api/v1/campaigns")
    assert api.status_code == 500 and api.json()["error"]["code"] == "server_error"
    assert "boom" not in api.content.decode()  # no internals
    page = client.get("/")
    assert page.status_code == 500 and page["Content-Type"].startswith("text/html")

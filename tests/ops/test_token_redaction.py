"""Share-link tokens never reach a log: gunicorn's access and error logs, and Django's request log."""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

import pytest
from django.utils import timezone

from tests.conftest import database_url
from tests.factories import make_campaign
from tests.ops.gunicorn import running_gunicorn
from webapp.ops.redact import ShareTokenFilter, redact
from webapp.sharing.models import ShareLink


def test_it_keeps_the_hint_and_drops_the_rest_of_a_token():
    token = "hs_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6"
    assert redact(f'"GET /s/{token}/ HTTP/1.1" 200') == '"GET /s/hs_A1b2C…/ HTTP/1.1" 200'
    assert redact("GET /s/hs_short/") == "GET /s/hs_short/"  # not a token: left alone


def test_the_filter_rewrites_the_formatted_message():
    token = "hs_" + "x" * 32
    record = logging.LogRecord(
        "django.request", logging.WARNING, __file__, 1, "Gone: %s", (f"/s/{token}/",), None
    )
    assert ShareTokenFilter().filter(record)
    assert token not in record.getMessage() and "/s/hs_xxxxx…/" in record.getMessage()


@pytest.mark.parametrize("log_format", ["text", "json"])
@pytest.mark.django_db(transaction=True)
def test_gunicorn_and_django_logs_carry_no_share_token(tmp_path: Path, log_format: str):
    campaign = make_campaign()
    _, live = ShareLink.issue(campaign, "overview", {})
    revoked_link, revoked = ShareLink.issue(campaign, "overview", {})
    ShareLink.objects.filter(pk=revoked_link.pk).update(revoked_at=timezone.now())
    env = {**os.environ, "LOG_FORMAT": log_format, "DATABASE_URL": database_url(), "DEBUG": "0"}
    with running_gunicorn(tmp_path, env) as server:
        deadline = time.monotonic() + 30
        statuses = [server.get(f"/s/{token}/", deadline) for token in (live, revoked, "hs_" + "guessed" * 5)]
    err = server.err
    assert statuses == [200, 410, 404], err.read_text()[-3000:]
    logs = server.out.read_text() + err.read_text()
    assert logs.count("GET /s/hs_") == 3, logs  # the requests are logged ...
    for token in (live, revoked, "hs_" + "guessed" * 5):
        assert token not in logs  # ... without their tokens
    assert f"/s/{live[:8]}…/" in logs  # the hint the links page shows, to tell links apart

"""Property-based fuzzing of the whole v1 API from its own OpenAPI document (issue 14, finding 6).

Schemathesis reads ``/api/v1/openapi.json`` and Hypothesis generates requests
for every operation -- path, query, form and JSON values of every shape the
document allows and many it does not -- sent through the real WSGI
application to the real database, as an agent (bearer token) and as a
signed-in project owner (session cookie with its CSRF token). Half of the
cases aim at objects that exist (the campaign, a run, an upload), so the
generated values reach the checks behind the 404s.

The bar: no answer is a server error, and every refusal is JSON
``{"error": {"code", "message"}}``. ``HEADROOM_FUZZ_EXAMPLES`` sets the
examples per operation (default 100: about 1,500 requests in under a minute;
derandomized, so each run sends the same requests).
"""

from __future__ import annotations

import io
import json
import os
import secrets
import time
from collections.abc import Iterator
from importlib import import_module
from typing import Any

import pytest
import schemathesis
from django.conf import settings as django_settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.utils.module_loading import import_string
from hypothesis import HealthCheck, Phase, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from tests.factories import make_token, make_user
from webapp.core.models import Host, Run, Scenario, Upload
from webapp.timeseries.models import CounterSeries

pytestmark = pytest.mark.django_db

EXAMPLES = int(os.environ.get("HEADROOM_FUZZ_EXAMPLES", "") or 100)


@pytest.fixture
def world(agent, client) -> dict[str, Any]:
    """A campaign with a run, a counter series and an upload; an agent token and an owner's session."""
    token, campaign = agent
    file = io.BytesIO(b"name,started_at,duration_ms\nlogon,2015-06-01T10:00:00Z,5\n")
    file.name = "timings.csv"
    created = client.post(
        "/api/v1/uploads", {"file": file, "campaign": campaign.slug}, HTTP_AUTHORIZATION=f"Bearer {token}"
    )
    assert created.status_code == 202, created.content
    host = Host.objects.create(project=campaign.project, name="FS01", role="server")
    run = Run.objects.create(campaign=campaign, scenario=Scenario.for_dims(campaign, {"av": "on"}), name="r1")
    run.hosts.add(host)
    series = CounterSeries.objects.create(host=host, object="Processor", instance="_Total", counter="% Time")
    owner = make_user(campaign.project, role="owner")
    # A session as django.contrib.auth.login would store it (without the login signals).
    session = import_module(django_settings.SESSION_ENGINE).SessionStore()
    session[SESSION_KEY] = str(owner.pk)
    session[BACKEND_SESSION_KEY] = next(  # the backend that loads users (not a lockout-only one)
        path for path in django_settings.AUTHENTICATION_BACKENDS if hasattr(import_string(path), "get_user")
    )
    session[HASH_SESSION_KEY] = owner.get_session_auth_hash()
    session.save()
    csrf = secrets.token_hex(16)  # a 32-character CSRF secret, sent as cookie and header
    _, second_token = make_token(campaign.project, name="fuzz")
    return {
        "agent": {"headers": {"Authorization": f"Bearer {second_token}"}, "cookies": {}},
        "owner": {
            "headers": {"X-CSRFToken": csrf},
            "cookies": {django_settings.SESSION_COOKIE_NAME: session.session_key, "csrftoken": csrf},
        },
        "path": {
            "slug": campaign.slug,
            "run_id": run.pk,
            "upload_id": Upload.objects.get(pk=created.json()["id"]).pk,
        },
        "series": series.pk,
        "campaign": campaign.slug,
    }


@pytest.fixture
def wsgi_app() -> Iterator[Any]:
    """The real WSGI application, keeping the test's connection (and transaction) open as the test client does."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield get_wsgi_application()
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


def aim_at_real_objects(case: Any, world: dict[str, Any]) -> None:
    """Point the case's ids and campaign fields at objects that exist; the rest stays generated."""
    for name, value in world["path"].items():
        if name in (case.path_parameters or {}):
            case.path_parameters[name] = value
    query = case.query if isinstance(case.query, dict) else None
    if query is not None:
        for name in ("series", "x", "y"):
            if name in query:
                query[name] = str(world["series"]) if name == "series" else world["series"]
    if isinstance(case.body, dict) and "campaign" in case.body:
        case.body["campaign"] = world["campaign"]


def problem(response: Any) -> str | None:
    """What is wrong with an answer, or None: no 5xx, and every refusal JSON with a code and message."""
    if response.status_code >= 500:
        return f"server error {response.status_code}: {response.text[:300]}"
    if response.status_code < 400:
        return None
    try:
        error = json.loads(response.content)["error"]
        assert error["code"] and error["message"]
    except (ValueError, KeyError, TypeError, AssertionError):
        return f"refusal {response.status_code} is not a JSON error: {response.text[:300]}"
    return None


def test_fuzzing_every_operation_finds_no_server_error_and_only_json_refusals(world, settings, wsgi_app):
    settings.TOKEN_RATE_PER_MINUTE = 0  # no limit: the fuzzer sends thousands of requests a minute
    schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", wsgi_app)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 12, [op.label for op in operations]
    failures: dict[str, str] = {}
    sent = 0
    began = time.monotonic()

    for operation in operations:

        @hypothesis_settings(
            max_examples=EXAMPLES,
            deadline=None,
            derandomize=True,
            database=None,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(case=operation.as_strategy(), caller=st.sampled_from(["agent", "owner"]), aim=st.booleans())
        def check(case: Any, caller: str, aim: bool) -> None:
            nonlocal sent
            if aim:
                aim_at_real_objects(case, world)
            response = case.call(headers=world[caller]["headers"], cookies=world[caller]["cookies"])
            sent += 1
            found = problem(response)
            label = case.operation.label
            if found is not None and label not in failures:
                failures[label] = f"{found}\nreproduce: {case.as_curl_command()}"

        check()

    elapsed = time.monotonic() - began
    print(f"fuzzed {len(operations)} operations with {sent} requests in {elapsed:.1f} s")
    assert not failures, "\n\n".join(f"{label}: {text}" for label, text in failures.items())

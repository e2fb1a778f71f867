"""Issue 26 item 8: load steps are capped per request and applied in a fixed number of queries.

Before the fix 5,000 steps were accepted and applied one ``UPDATE`` plus one
``update_or_create`` each (12.6 s of a web worker).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from webapp.api.runs import MAX_STEPS
from webapp.core.models import Run, RunStep, Scenario
from webapp.core.runs import apply_steps

pytestmark = pytest.mark.django_db
T0 = datetime(2015, 6, 1, 10, 0, tzinfo=UTC)


@pytest.fixture
def run(campaign):
    return Run.objects.create(campaign=campaign, scenario=Scenario.for_dims(campaign, {}), name="run-1")


def post_steps(client, token: str, run: Run, body: object):
    return client.post(
        f"/api/v1/runs/{run.pk}/steps",
        json.dumps(body),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )


def ramp(count: int) -> list[tuple[int, datetime, datetime | None]]:
    """``count`` open steps of 10, 20, ... users, one a minute."""
    return [(10 * (i + 1), T0 + timedelta(minutes=i), None) for i in range(count)]


def test_more_steps_than_the_limit_are_refused_naming_it(client, agent, run):
    token, _ = agent
    steps = [{"users": u, "started_at": s.isoformat()} for u, s, _ in ramp(5000)]
    response = post_steps(client, token, run, {"steps": steps})
    assert response.status_code == 413, response.content
    error = response.json()["error"]
    assert error["code"] == "too_many_steps" and "1,000" in error["message"]
    assert error["details"] == {"limit": MAX_STEPS}
    assert not RunStep.objects.exists()
    at_limit = post_steps(client, token, run, {"steps": steps[:MAX_STEPS], "end_at": "2015-06-02T10:00:00Z"})
    assert at_limit.status_code == 200, at_limit.content
    assert RunStep.objects.filter(run=run).count() == MAX_STEPS
    assert not RunStep.objects.filter(ended_at=None).exists()


def queries_to_apply(run: Run, steps: list[tuple[int, datetime, datetime | None]]) -> int:
    with CaptureQueriesContext(connection) as captured:
        apply_steps(run, steps, T0 + timedelta(days=1))
    return len(captured.captured_queries)


def test_applying_steps_takes_the_same_queries_for_ten_and_for_a_thousand(campaign, run):
    other = Run.objects.create(campaign=campaign, scenario=run.scenario, name="run-2")
    few, many = queries_to_apply(run, ramp(10)), queries_to_apply(other, ramp(MAX_STEPS))
    assert few == many, (few, many)
    ends = list(RunStep.objects.filter(run=other).order_by("started_at").values_list("ended_at", flat=True))
    # Each open step ends when the next starts; the last at end_at.
    assert ends == [T0 + timedelta(minutes=i + 1) for i in range(MAX_STEPS - 1)] + [T0 + timedelta(days=1)]


def test_steps_are_applied_in_start_order_against_the_steps_already_stored(run):
    apply_steps(run, [(10, T0, None), (20, T0 + timedelta(minutes=5), None)])
    # Sent out of order; 30 users is given its own end; 20 users is re-sent with an end.
    apply_steps(
        run,
        [
            (40, T0 + timedelta(minutes=20), None),
            (30, T0 + timedelta(minutes=10), T0 + timedelta(minutes=12)),
            (20, T0 + timedelta(minutes=5), T0 + timedelta(minutes=9)),
        ],
        end_at=T0 + timedelta(minutes=25),
    )
    steps = list(RunStep.objects.filter(run=run).order_by("started_at").values_list("users", "ended_at"))
    assert steps == [
        (10, T0 + timedelta(minutes=5)),
        (20, T0 + timedelta(minutes=9)),
        (30, T0 + timedelta(minutes=12)),
        (40, T0 + timedelta(minutes=25)),
    ]
    # A step re-sent without an end is open again until end_at.
    apply_steps(run, [(40, T0 + timedelta(minutes=20), None)])
    assert RunStep.objects.get(run=run, users=40).ended_at is None
    apply_steps(run, [], end_at=T0 + timedelta(minutes=30))
    assert RunStep.objects.get(run=run, users=40).ended_at == T0 + timedelta(minutes=30)
    assert RunStep.objects.filter(run=run).count() == 4

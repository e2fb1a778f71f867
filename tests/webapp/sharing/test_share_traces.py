"""A traces link freezes run, series and time range, and opens anonymously with exactly those buckets."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from urllib.parse import urlencode

import pytest
from django.core.cache import cache

from tests.factories import make_user
from tests.webapp.dashboard.demo import load_demo
from tests.webapp.sharing.test_share_answer import share
from webapp.dashboard.views.traces import traced_runs
from webapp.sharing.models import ShareLink
from webapp.timeseries.models import CounterSeries

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo():
    cache.clear()
    return load_demo(kinds=("perfmon_csv",))


def embedded(page: str) -> dict:
    found = re.search(r'<script id="traces-data" type="application/json">(.*?)</script>', page, re.S)
    assert found, "the shared page embeds the frozen trace"
    return json.loads(found.group(1))


def test_a_traces_link_opens_anonymously_with_the_frozen_series_and_range(client, demo):
    run = traced_runs(demo)[1]
    series = list(CounterSeries.objects.filter(host__runs=run).order_by("pk").values_list("pk", flat=True))[
        :2
    ]
    assert run.started_at is not None
    start = run.started_at + timedelta(minutes=30)
    end = run.started_at + timedelta(minutes=90)
    frozen = {
        "run": run.pk,
        "series": ",".join(map(str, series)),
        "start": start.isoformat(),
        "end": end.isoformat(),
    }
    page = share(client, demo, view="traces", query="?" + urlencode(frozen))
    link = ShareLink.objects.get(view="traces")
    assert link.filters == frozen
    data = embedded(page)
    assert [s["id"] for s in data["series"]] == series
    assert f"Run {run.name}" in page and "Users before" not in page
    # The same buckets as the trace API gives a member for the same run, series and range.
    client.force_login(make_user(demo.project))
    api = client.get(f"/api/v1/runs/{run.pk}/trace", {**frozen, "width": 1000}).json()
    for shown, answer in zip(data["series"], api["series"], strict=True):
        assert shown["path"] == answer["path"]
        assert len(shown["points"]) == len(answer["points"]) > 10
        assert [p[1] for p in shown["points"]] == [p["avg"] for p in answer["points"]]
    assert data["bucket_seconds"] == api["bucket_seconds"]


def test_a_traces_link_with_foreign_series_or_a_bad_range_is_refused(client, demo):
    runs = traced_runs(demo)
    other = CounterSeries.objects.exclude(host__runs=runs[0]).first()
    client.force_login(make_user(demo.project, role="editor"))
    for query in (
        f"?run={runs[0].pk}&series={other.pk if other else 999999}",
        f"?run={runs[0].pk}&series=abc",
        f"?run={runs[0].pk}&series=1&start=yesterday",
    ):
        client.post(f"/campaigns/{demo.slug}/shares/new", {"view": "traces", "query": query})
    assert not ShareLink.objects.filter(view="traces").exists()


def test_the_traces_page_offers_share_this_view(client, demo):
    client.force_login(make_user(demo.project))
    page = client.get(f"/campaigns/{demo.slug}/traces/").content.decode()
    assert 'name="view" value="traces"' in page and 'id="share-this"' in page


def other_campaigns_samples(series_id: int, moments: list) -> None:
    """Samples the run's host recorded for another campaign: same series, outside this run."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT upload_id FROM counter_sample WHERE series_id = %s LIMIT 1", [series_id])
        upload_id = cursor.fetchone()[0]
        for moment in moments:
            cursor.execute(
                "INSERT INTO counter_sample (series_id, time, value, upload_id) VALUES (%s, %s, %s, %s)",
                [series_id, moment, 999.0, upload_id],
            )


def test_a_traces_link_never_shows_samples_from_outside_its_run(client, demo):
    from django.db import connection

    run = traced_runs(demo)[0]
    assert run.started_at is not None and run.ended_at is not None
    series = CounterSeries.objects.filter(host__runs=run).order_by("pk").first()
    assert series is not None
    # Another campaign on the same host: a day before, and one second either side of the run.
    before, after = run.started_at - timedelta(days=1), run.ended_at + timedelta(days=1)
    edges = [run.started_at - timedelta(seconds=1), run.ended_at + timedelta(seconds=1)]
    other_campaigns_samples(series.pk, [before, before + timedelta(minutes=1), *edges, after])
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM counter_sample WHERE series_id = %s AND time >= %s AND time <= %s",
            [series.pk, run.started_at, run.ended_at],
        )
        in_run = cursor.fetchone()[0]
    assert in_run > 10

    # A link frozen on the other campaign's range is refused when it is made ...
    client.force_login(make_user(demo.project, role="editor"))
    foreign = {
        "run": run.pk,
        "series": str(series.pk),
        "start": (before - timedelta(minutes=5)).isoformat(),
        "end": (before + timedelta(minutes=5)).isoformat(),
    }
    client.post(f"/campaigns/{demo.slug}/shares/new", {"view": "traces", "query": "?" + urlencode(foreign)})
    assert not ShareLink.objects.filter(view="traces").exists()
    client.logout()
    # ... and one frozen before this check opens as a clear page without data.
    _, plain = ShareLink.issue(demo, "traces", foreign)
    response = client.get(f"/s/{plain}/")
    assert response.status_code == 422
    assert "within run" in response.content.decode() and "999" not in response.content.decode()

    # The whole run: every sample inside it, none of the neighbours in the edge buckets.
    page = share(client, demo, view="traces", query=f"?run={run.pk}&series={series.pk}")
    points = embedded(page)["series"][0]["points"]
    assert max(p[3] for p in points) < 999.0
    assert embedded(page)["bucket_seconds"] > 0

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

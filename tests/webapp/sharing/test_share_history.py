"""A shared series history: frozen parameters and baseline, the API's figures, plain words, live notes.

The series is ``tests.webapp.analysis.studies.series_campaign``'s (with a 75 %
threshold SMB 3.02 falls from 375 to 322.5 users in "build 10"), and the
same real fio result (``vc_fio-3.26_randwrite.json``) in the last two
campaigns, so its headline figures are the same on both sides.
"""

from __future__ import annotations

import html
import json
import re

import pytest
from django.core.cache import cache

from tests.factories import make_campaign, make_user
from tests.ingest import ingest_path
from tests.paths import FIXTURES
from tests.webapp.analysis.studies import series_campaign
from webapp.core.models import Campaign, Note, Series
from webapp.sharing.models import ShareLink

pytestmark = pytest.mark.django_db

FIO = FIXTURES / "fio_json" / "vc_fio-3.26_randwrite.json"
FIGURE = re.compile(r'data-key="([^"]+)" data-unit="([^"]*)" data-value="([^"]*)"')


@pytest.fixture
def series():
    cache.clear()
    project = make_campaign().project
    series_campaign(project, "patch-a", "build 8", {"2.1": 0.2, "3.02": 0.2})
    for slug, key, slope in (("patch-b", "build 9", 0.2), ("patch-c", "build 10", 0.2 / 0.86)):
        campaign = series_campaign(project, slug, key, {"2.1": 0.2, "3.02": slope})
        ingest_path(campaign, FIO, scenario={"smb_dialect": "3.02"}, host="CL1", role="client")
    return Series.objects.get(slug="fs-monthly")


def share_history(client, series, query="threshold=75") -> str:
    """A link made with "Share this view" on the history page (its address's parameters), opened anonymously."""
    client.force_login(make_user(series.project, role="editor"))
    page = client.get(f"/series/{series.slug}/history/?{query}").content.decode()
    action = re.search(r'<form method="post" action="(/campaigns/[^/]+/shares/new)"', page).group(1)
    assert action == "/campaigns/patch-c/shares/new"  # the series' latest campaign holds the link
    response = client.post(action, {"view": "history", "query": f"?{query}"})
    assert response.status_code == 302
    listing = client.get("/campaigns/patch-c/shares/").content.decode()
    url = re.search(r'<code id="new-share-url">http://testserver(/s/[^<]+)</code>', listing).group(1)
    client.logout()
    return url


def read(page: str) -> str:
    """The words a reader sees (no tags, no embedded chart data)."""
    return html.unescape(re.sub(r"<[^>]+>", "", re.sub(r"<script.*?</script>", "", page, flags=re.S)))


def pointer(answer, at: str):
    node = answer
    for part in at.lstrip("/").split("/"):
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def test_the_shared_history_prints_the_apis_figures_in_plain_words(client, series):
    url = share_history(client, series)
    link = ShareLink.objects.get(view="history")
    assert link.filters == {
        "counter": "",
        "stat": "avg",
        "threshold": 75.0,
        "trim": 10.0,
        "series": "fs-monthly",
        "baseline": "",
    }
    page = client.get(url)
    assert page.status_code == 200
    text = page.content.decode()
    words = read(text)
    assert "History of the series fs-monthly" in words
    # The one significant change, in a sentence with its figures.
    assert (
        "build 10, SMB 3.02: users before the threshold changed by \u221214.0 % against build 9 (worse): "
        "322 users, was 375 users." in words
    )
    # Headline fio figures in plain words (metric_words), never their stored names.
    assert "write completion latency, 99th percentile (ms)" in words and "write.clat.p99_ms" not in words
    # Every marked figure is the value the member's API answers at its pointer.
    api = re.search(r'data-api="(history\?[^"]+)"', text).group(1)
    # The frozen "previous" is named too: without it the series' own baseline would answer.
    assert html.unescape(api) == "history?stat=avg&threshold=75.0&trim=10.0&baseline="
    client.force_login(make_user(series.project, role="viewer"))
    answer = client.get(f"/api/v1/campaigns/patch-c/{html.unescape(api)}").json()
    figures = FIGURE.findall(text)
    assert len(figures) >= 12
    for keys, _unit, value in figures:
        if " " not in keys:
            assert json.loads(html.unescape(value)) == pointer(answer, keys), keys
    assert pointer(answer, "/changes/3/change_pct") == pytest.approx(-14.0)


def test_the_link_keeps_its_baseline_when_the_series_is_pinned_later(client, series):
    url = share_history(client, series)
    Series.objects.filter(pk=series.pk).update(baseline=Campaign.objects.get(slug="patch-a"))
    words = read(client.get(url).content.decode())
    assert "compared with the campaign before it" in words and "against build 9" in words
    # A link made now keeps the pinned one.
    url = share_history(client, series)
    words = read(client.get(url).content.decode())
    assert "compared with the pinned baseline build 8" in words and "against build 8" in words


def test_a_campaign_that_left_its_series_shows_why_its_link_cannot_be_shown(client, series):
    url = share_history(client, series)
    Campaign.objects.filter(slug="patch-c").update(
        series=Series.objects.create(project=series.project, slug="x")
    )
    response = client.get(url)
    assert response.status_code == 422 and "left the series" in response.content.decode()
    Campaign.objects.filter(slug="patch-c").update(series=None)
    assert client.get(url).status_code == 422


def test_notes_show_live_and_only_those_of_the_links_campaigns(client, series):
    url = share_history(client, series)
    patch_b = Campaign.objects.get(slug="patch-b")
    note = Note.objects.create(project=series.project, campaign=patch_b, text="AV engine 1.2.3 installed")
    elsewhere = make_campaign(project=series.project)
    Note.objects.create(project=series.project, campaign=elsewhere, text="not in this series")
    text = client.get(url).content.decode()
    assert "build 9:</span> AV engine 1.2.3 installed" in text and "not in this series" not in text
    note.delete()
    assert "AV engine 1.2.3" not in client.get(url).content.decode()
    # Any other view's report shows its own campaign's notes only.
    Note.objects.create(project=series.project, campaign=patch_b, text="on patch-b")
    overview = ShareLink.issue(Campaign.objects.get(slug="patch-c"), "overview", {})[1]
    Note.objects.create(
        project=series.project, campaign=Campaign.objects.get(slug="patch-c"), text="on patch-c"
    )
    text = client.get(f"/s/{overview}/").content.decode()
    assert "Campaign:</span> on patch-c" in text and "on patch-b" not in text


def test_a_history_link_needs_a_series_and_valid_parameters(client):
    campaign = make_campaign()
    client.force_login(make_user(campaign.project, role="editor"))
    client.post(f"/campaigns/{campaign.slug}/shares/new", {"view": "history"})
    assert "belongs to no series" in client.get(f"/campaigns/{campaign.slug}/shares/").content.decode()
    campaign.series = Series.objects.create(project=campaign.project, slug="solo", name="solo")
    campaign.save()
    client.post(f"/campaigns/{campaign.slug}/shares/new", {"view": "history", "query": "?stat=median"})
    assert "stat must be avg, max or p95" in html.unescape(
        client.get(f"/campaigns/{campaign.slug}/shares/").content.decode()
    )
    assert not ShareLink.objects.exists()

"""Share links: unguessable, hashed, frozen, expiring, revocable, counted, and scoped to one campaign."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from tests.factories import make_campaign, make_user
from tests.ingest import ingest_bytes
from webapp.sharing.models import ShareLink, digest

pytestmark = pytest.mark.django_db

TIMINGS = b"""[{"name": "Firefox launch", "started_at": "2015-06-01T10:00:00Z", "duration_ms": 1000, "repetition": 1},
{"name": "Firefox launch", "started_at": "2015-06-01T10:01:00Z", "duration_ms": 1200, "repetition": 2}]"""
TIMINGS_SLOW = TIMINGS.replace(b"1000", b"3000").replace(b"1200", b"3600")


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()


def make_link(client, campaign, **form):
    client.force_login(make_user(campaign.project, role="editor"))
    client.post(f"/campaigns/{campaign.slug}/shares/new", {"view": "overview", **form})
    page = client.get(f"/campaigns/{campaign.slug}/shares/").content.decode()
    url = re.search(r'<code id="new-share-url">http://testserver(/s/[^<]+)</code>', page).group(1)
    client.logout()
    return url


def test_a_link_opens_without_login_and_counts_views(client):
    campaign = make_campaign()
    url = make_link(client, campaign, label="for the CIO")
    token = url.split("/")[2]
    assert len(token) >= 3 + 32  # 192 random bits, url-safe
    link = ShareLink.objects.get(campaign=campaign)
    assert link.digest == digest(token) and token not in (link.hint, link.label)
    page = client.get(url)
    assert page.status_code == 200
    html = page.content.decode()
    assert campaign.name in html and "Scenario definitions" in html and "Method." in html
    client.get(url)
    link.refresh_from_db()
    assert link.view_count == 2 and link.last_viewed_at is not None


def test_the_shared_page_links_nowhere_else(client):
    campaign = make_campaign()
    html = client.get(make_link(client, campaign)).content.decode()
    hrefs = re.findall(r'href="([^"]+)"', html)
    assert all(h.startswith("/static/") for h in hrefs), hrefs
    assert "/campaigns/" not in html and "/admin" not in html


def test_a_comparison_link_freezes_its_baseline(client):
    campaign = make_campaign()
    fast = ingest_bytes(campaign, TIMINGS, scenario={"av": "off"}, host="C1")
    ingest_bytes(campaign, TIMINGS_SLOW, scenario={"av": "on"}, host="C1")
    baseline = fast.scenario
    url = make_link(client, campaign, view="compare", baseline=str(baseline.pk))
    html = client.get(url).content.decode()
    assert "Compared with av=off" in html
    assert "3.00\u00d7" in html  # (3000 + 3600) / (1000 + 1200)


def test_expired_and_revoked_links_show_410_without_data(client):
    campaign = make_campaign()
    url = make_link(client, campaign)
    link = ShareLink.objects.get(campaign=campaign)
    link.expires_at = timezone.now() - timedelta(minutes=1)
    link.save()
    expired = client.get(url)
    assert expired.status_code == 410 and "expired" in expired.content.decode()
    assert campaign.name not in expired.content.decode()
    link.expires_at = None
    link.revoked_at = timezone.now()
    link.save()
    revoked = client.get(url)
    assert revoked.status_code == 410 and "revoked" in revoked.content.decode()
    assert campaign.name not in revoked.content.decode()


def test_invalid_tokens_are_rate_limited(client):
    statuses = [client.get(f"/s/hs_guess{i:04d}/").status_code for i in range(25)]
    assert statuses[:20] == [404] * 20
    assert statuses[-1] == 429


def test_only_editors_of_the_project_manage_links(client):
    campaign = make_campaign()
    client.force_login(make_user(campaign.project, role="viewer"))
    assert client.post(f"/campaigns/{campaign.slug}/shares/new", {"view": "overview"}).status_code == 404
    client.force_login(make_user(make_campaign().project, role="owner"))
    assert client.get(f"/campaigns/{campaign.slug}/shares/").status_code == 404
    assert not ShareLink.objects.exists()


def test_revoking_from_the_list(client):
    campaign = make_campaign()
    url = make_link(client, campaign)
    link = ShareLink.objects.get(campaign=campaign)
    client.force_login(make_user(campaign.project, role="owner"))
    client.post(f"/campaigns/{campaign.slug}/shares/{link.pk}/revoke")
    client.logout()
    assert client.get(url).status_code == 410

"""Share links: unguessable, hashed, frozen, expiring, revocable, counted, and scoped to one campaign."""

from __future__ import annotations

import re
import time
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


@pytest.fixture
def one_window():
    """Misses are counted per clock minute (ratelimit.hit): the test's guesses must all fall in one."""
    left = 60 - time.time() % 60
    if left < 10:
        time.sleep(left)


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
    # Our own static files, the skip link to the report's content and the empty icon only.
    assert all(h.startswith("/static/") or h in ("#main", "data:,") for h in hrefs), hrefs
    assert "/campaigns/" not in html and "/admin" not in html


def test_a_comparison_link_freezes_its_baseline(client):
    campaign = make_campaign()
    fast = ingest_bytes(campaign, TIMINGS, scenario={"av": "off"}, host="C1")
    ingest_bytes(campaign, TIMINGS_SLOW, scenario={"av": "on"}, host="C1")
    baseline = fast.scenario
    url = make_link(client, campaign, view="compare", baseline=str(baseline.pk))
    html = client.get(url).content.decode()
    assert "Compared with AV off" in html  # named by what differs, not key=value
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


def test_invalid_tokens_are_rate_limited(client, one_window):
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


def test_guesses_never_lock_out_a_valid_link(client, one_window):
    campaign = make_campaign()
    url = make_link(client, campaign)
    statuses = [client.get(f"/s/hs_guess{i:04d}/").status_code for i in range(25)]
    assert statuses[-1] == 429
    # The same address that was refused for guessing still opens the real link.
    assert client.get(url).status_code == 200


def test_revoked_and_expired_links_are_not_counted_as_guesses(client):
    campaign = make_campaign()
    url = make_link(client, campaign)
    ShareLink.objects.filter(campaign=campaign).update(revoked_at=timezone.now())
    assert {client.get(url).status_code for _ in range(25)} == {410}
    assert client.get("/s/hs_guess/").status_code == 404


def test_the_forwarded_header_is_ignored_unless_a_trusted_proxy_is_configured(client, one_window):
    forged = [client.get(f"/s/hs_g{i}/", HTTP_X_FORWARDED_FOR=f"192.0.2.{i}").status_code for i in range(25)]
    assert forged[-1] == 429  # a client cannot dodge the limit by inventing addresses


def test_behind_a_trusted_proxy_guesses_are_counted_per_client(client, settings, one_window):
    settings.TRUSTED_PROXY_HEADER = "X-Forwarded-For"
    settings.TRUSTED_PROXY_COUNT = 1
    proxy = {"REMOTE_ADDR": "10.0.0.2"}
    guesser = [
        client.get(f"/s/hs_g{i}/", HTTP_X_FORWARDED_FOR="203.0.113.9", **proxy).status_code for i in range(25)
    ]
    assert guesser[:20] == [404] * 20 and guesser[-1] == 429
    # Another visitor behind the same proxy is not refused for the guesser's misses.
    assert client.get("/s/hs_typo/", HTTP_X_FORWARDED_FOR="198.51.100.4", **proxy).status_code == 404


def test_behind_a_trusted_proxy_a_client_cannot_forge_the_address_it_came_from(client, settings, one_window):
    settings.TRUSTED_PROXY_HEADER = "X-Forwarded-For"
    settings.TRUSTED_PROXY_COUNT = 1
    # The proxy appends the address it saw; what the client wrote before it is not trusted.
    statuses = [
        client.get(
            f"/s/hs_g{i}/", HTTP_X_FORWARDED_FOR=f"192.0.2.{i}, 203.0.113.9", REMOTE_ADDR="10.0.0.2"
        ).status_code
        for i in range(25)
    ]
    assert statuses[-1] == 429


@pytest.mark.parametrize(
    "form",
    [
        {"trim": "75"},
        {"trim": "-60"},
        {"trim": "nan"},
        {"threshold": "nan"},
        {"threshold": "inf"},
        {"stat": "median"},
        {"counter": "not a counter path"},
    ],
)
def test_out_of_range_capacity_filters_are_refused_with_a_message(client, form):
    campaign = make_campaign()
    client.force_login(make_user(campaign.project, role="editor"))
    response = client.post(
        f"/campaigns/{campaign.slug}/shares/new", {"view": "capacity", **form}, follow=True
    )
    assert response.status_code == 200
    assert "cannot share these capacity filters" in response.content.decode()
    assert not ShareLink.objects.exists()


def test_share_filters_are_checked_by_the_same_rules_as_the_api(client, agent):
    plain, campaign = agent
    from webapp.sharing import report

    cases = [
        {"trim": "0"},
        {"trim": "49.9"},
        {"trim": "50"},
        {"trim": "75"},
        {"trim": "-60"},
        {"threshold": "nan"},
        {"threshold": "-inf"},
        {"threshold": "120"},
        {"stat": "p95"},
        {"stat": "median"},
    ]
    for params in cases:
        api = client.get(
            f"/api/v1/campaigns/{campaign.slug}/capacity", params, HTTP_AUTHORIZATION=f"Bearer {plain}"
        )
        try:
            report.capacity_filters(params)
            shared_ok = True
        except ValueError:
            shared_ok = False
        assert (api.status_code == 200) == shared_ok, (params, api.status_code)


def test_nonsense_expiry_and_nul_bytes_are_refused_with_a_message(client):
    campaign = make_campaign()
    client.force_login(make_user(campaign.project, role="editor"))
    for form in (
        {"expires_in_days": "99999999999"},
        {"expires_in_days": "soon"},
        {"label": "board\x00report"},
        {"view": "capacity", "counter": "\\Processor(_Total)\\% Processor\x00 Time"},
    ):
        response = client.post(
            f"/campaigns/{campaign.slug}/shares/new", {"view": "overview", **form}, follow=True
        )
        assert response.status_code == 200, form
        assert "alert" in response.content.decode(), form
    assert not ShareLink.objects.exists()


@pytest.mark.parametrize(
    ("label", "found"),
    [
        ("for the \u202eOIC", "U+202E"),
        ("board\x1breport", "U+001B"),
        ("a\u2029b", "U+2029"),
        ("x\x9by", "U+009B"),
    ],
)
def test_a_label_with_control_or_text_direction_characters_is_refused_naming_the_label(client, label, found):
    campaign = make_campaign()
    client.force_login(make_user(campaign.project, role="editor"))
    response = client.post(
        f"/campaigns/{campaign.slug}/shares/new", {"view": "overview", "label": label}, follow=True
    )
    page = response.content.decode()
    assert f"the label must not contain control or text-direction characters (found {found}" in page
    assert not ShareLink.objects.exists()


def test_a_link_whose_frozen_filters_are_out_of_range_says_so_instead_of_rendering(client):
    campaign = make_campaign()
    _, plain = ShareLink.issue(
        campaign, "capacity", {"trim": 75.0, "threshold": 80.0, "stat": "avg", "counter": ""}
    )
    response = client.get(f"/s/{plain}/")
    html = response.content.decode()
    assert response.status_code == 422
    assert "trim" in html and "new link" in html
    assert campaign.name not in html


def test_the_new_link_is_never_cached_nor_readable_from_the_session(client):
    campaign = make_campaign()
    client.force_login(make_user(campaign.project, role="editor"))
    created = client.post(f"/campaigns/{campaign.slug}/shares/new", {"view": "overview"})
    assert created.status_code == 302
    # Until the redirect is followed (or if it never is) the session holds no usable URL.
    held = str(dict(client.session.items()))
    page = client.get(created["Location"])
    assert "no-store" in page["Cache-Control"]
    url = re.search(
        r'<code id="new-share-url">http://testserver(/s/[^<]+)</code>', page.content.decode()
    ).group(1)
    token = url.split("/")[2]
    assert token not in held and token[3:11] not in held
    again = client.get(f"/campaigns/{campaign.slug}/shares/")
    assert token not in again.content.decode() and "no-store" in again["Cache-Control"]
    assert client.get(url).status_code == 200


def test_the_session_alone_does_not_reveal_a_new_link(client):
    campaign = make_campaign()
    client.force_login(make_user(campaign.project, role="editor"))
    client.post(f"/campaigns/{campaign.slug}/shares/new", {"view": "overview"})
    # Another browser holding a copy of the session (not the one-time cookie) sees no URL.
    client.cookies.pop("headroom_once_share", None)
    page = client.get(f"/campaigns/{campaign.slug}/shares/").content.decode()
    assert 'id="new-share-url"' not in page


def test_share_this_view_makes_a_link_expiring_after_the_forms_default(client):
    from webapp.sharing.models import DEFAULT_EXPIRY_DAYS

    campaign = make_campaign()
    client.force_login(make_user(campaign.project, role="editor"))
    form_page = client.get(f"/campaigns/{campaign.slug}/shares/").content.decode()
    assert (
        f'name="expires_in_days" type="number" min="0" max="3650" value="{DEFAULT_EXPIRY_DAYS}"' in form_page
    )
    compare_page = client.get(f"/campaigns/{campaign.slug}/compare/").content.decode()
    share_this = compare_page[compare_page.index("data-share-this") :]
    share_this = share_this[: share_this.index("</form>")]
    assert f'name="expires_in_days" value="{DEFAULT_EXPIRY_DAYS}"' in share_this
    assert f"expires after {DEFAULT_EXPIRY_DAYS} days" in share_this

    before = timezone.now()
    client.post(f"/campaigns/{campaign.slug}/shares/new", {"view": "overview"})  # no expiry sent at all
    client.post(f"/campaigns/{campaign.slug}/shares/new", {"view": "overview", "expires_in_days": "0"})
    made = list(ShareLink.objects.order_by("pk"))
    assert len(made) == 2
    assert made[0].expires_at is not None
    assert before + timedelta(days=30) <= made[0].expires_at <= timezone.now() + timedelta(days=30)
    assert made[1].expires_at is None  # 0 still means never, when asked for

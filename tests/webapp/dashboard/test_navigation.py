"""Every page is reachable by clicking; new campaigns say what to send; revoking asks first."""

from __future__ import annotations

import re

import pytest

from tests.factories import make_campaign, make_token, make_user
from tests.webapp.dashboard.demo import load_demo

pytestmark = pytest.mark.django_db


def links(html: str) -> set[str]:
    return set(re.findall(r'href="([^"]+)"', html))


def test_the_navigation_reaches_projects_account_logout_shares_tokens_and_settings(client):
    campaign = make_campaign()
    client.force_login(make_user(campaign.project, role="editor"))
    html = client.get(f"/campaigns/{campaign.slug}/").content.decode()
    nav = html.split("<nav")[1].split("</nav>")[0]
    slug, project = campaign.slug, campaign.project.slug
    assert {
        "/accounts/projects/",
        "/accounts/password/",
        f"/campaigns/{slug}/shares/",
        f"/accounts/projects/{project}/tokens/",
        f"/campaigns/{slug}/settings/",
    } <= links(nav)
    assert 'action="/accounts/logout/"' in nav and ">Log out</button>" in nav
    # Each of those answers the editor.
    for target in links(nav):
        assert client.get(target).status_code == 200, target
    projects = client.get("/accounts/projects/").content.decode()
    assert (
        f"/campaigns/new?project={project}" in projects
        and f"/accounts/projects/{project}/tokens/" in projects
    )
    assert "/campaigns/new" in links(client.get("/").content.decode())


def test_viewers_see_no_links_to_pages_they_cannot_open(client):
    campaign = make_campaign()
    client.force_login(make_user(campaign.project, role="viewer"))
    nav = client.get(f"/campaigns/{campaign.slug}/").content.decode().split("<nav")[1].split("</nav>")[0]
    assert "/shares/" not in nav and "/tokens/" not in nav and "/settings/" not in nav
    assert "/accounts/projects/" in links(nav)


def test_logout_from_the_navigation_signs_out(client):
    client.force_login(make_user(make_campaign().project))
    assert client.post("/accounts/logout/").status_code == 302
    assert client.get("/").status_code == 302


def test_the_uploads_page_says_how_to_upload_to_this_server(client):
    campaign = make_campaign()
    client.force_login(make_user(campaign.project, role="editor"))
    html = client.get(f"/campaigns/{campaign.slug}/uploads/", HTTP_HOST="localhost:8443").content.decode()
    assert (
        f"headroom-agent configure --server http://localhost:8443 --token &lt;agent token&gt; "
        f"--campaign {campaign.slug}" in html
    )
    assert f'href="/accounts/projects/{campaign.project.slug}/tokens/">make one</a>' in html
    assert '<details class="card howto" open>' in html  # open while there is nothing yet


def test_a_new_campaigns_empty_pages_say_what_to_send(client):
    campaign = make_campaign()
    client.force_login(make_user(campaign.project))
    expected = {
        "": f"--campaign {campaign.slug}",
        "capacity/": "headroom-agent step --run run-1 --users 50",
        "compare/": "headroom-agent time --name",
        "traces/": "headroom-agent sample --run run-1 --role server",
        "block-size/": "diskspd-8k.xml",
        "copies/": "robocopy.log",
    }
    for suffix, text in expected.items():
        html = client.get(f"/campaigns/{campaign.slug}/{suffix}").content.decode()
        assert "What to send" in html and text in html, suffix
        assert "http://testserver" in html, suffix


def test_pages_with_data_do_not_repeat_the_instructions(client):
    campaign = load_demo()
    client.force_login(make_user(campaign.project))
    for suffix in ("", "capacity/", "compare/", "traces/"):
        html = client.get(f"/campaigns/{campaign.slug}/{suffix}").content.decode()
        assert "What to send" not in html, suffix


def test_revoking_a_token_or_a_share_link_asks_first(client):
    campaign = make_campaign()
    make_token(campaign.project, name="fs01")
    client.force_login(make_user(campaign.project, role="owner"))
    client.post(f"/campaigns/{campaign.slug}/shares/new", {"view": "overview", "expires_in_days": "1"})
    tokens = client.get(f"/accounts/projects/{campaign.project.slug}/tokens/").content.decode()
    assert re.search(r'<form[^>]*/revoke"[^>]*data-confirm="Revoke token fs01\?', tokens)
    shares = client.get(f"/campaigns/{campaign.slug}/shares/").content.decode()
    assert re.search(r'<form[^>]*/revoke"[^>]*data-confirm="Revoke this share link\?', shares)

"""A shared capacity report's "User experience" section (issue 21 item 4) on the "Logon load 2015" demo: the
rule the page kept in its address is frozen into the link, checked like the API checks it, and the answer
embedded in the report is the API's for that rule.

By hand (webapp/demo/logon_load.py): logon means 1,000 ms up to 400 users, then SMB 2.1 1,600 at 500 and
2,200 at 600, SMB 3.02 1,400 at 800 and 2,200 at 900. Baseline: the first step, 1,000 ms. With factor 1.5 the
threshold is 1,500 ms: SMB 2.1 crosses at 400 + 100 x 500 / 600 = 483.3 users, SMB 3.02 at 800 + 100 x 100 /
800 = 812.5 users. With delta_ms 1,000 (2,000 ms): 566.7 and 875 users.
"""

from __future__ import annotations

import html
import json
import re

import pytest
from django.core.cache import cache
from django.core.management import call_command

from tests.factories import make_user
from webapp.core.models import Campaign, Upload
from webapp.sharing.models import ShareLink
from workers.tasks import ingest_upload

pytestmark = pytest.mark.django_db

CAPACITY = "/api/v1/campaigns/demo-logon/capacity"


@pytest.fixture
def demo():
    cache.clear()
    call_command("load_demo", "--campaign", "demo-logon")
    for upload_id in Upload.objects.values_list("pk", flat=True):
        ingest_upload.apply(args=(upload_id,))
    assert set(Upload.objects.values_list("status", flat=True)) == {"stored"}
    return Campaign.objects.get(slug="demo-logon")


def share(client, campaign, query: str) -> tuple[ShareLink, str]:
    client.force_login(make_user(campaign.project, role="editor"))
    response = client.post(f"/campaigns/{campaign.slug}/shares/new", {"view": "capacity", "query": query})
    assert response.status_code == 302
    page = client.get(f"/campaigns/{campaign.slug}/shares/").content.decode()
    found = re.search(r'<code id="new-share-url">http://testserver(/s/[^<]+)</code>', page)
    assert found, re.findall(r'<p class="alert">(.*?)</p>', page)
    client.logout()
    body = client.get(found.group(1))
    assert body.status_code == 200
    return ShareLink.objects.get(campaign=campaign), body.content.decode()


def embedded(page: str) -> dict:
    found = re.search(r'<script id="ux-data" type="application/json">(.*?)</script>', page, re.S)
    assert found
    return json.loads(found.group(1))


def by_dialect(body: dict) -> dict[str, dict]:
    return {s["dims"]["smb_dialect"]: s for s in body["scenarios"]}


def test_the_page_s_rule_is_frozen_and_the_report_embeds_the_api_s_answer_for_it(client, demo):
    link, page = share(client, demo, "?counter=&stat=avg&timing=logon&ux_baseline=first_step&factor=1.5")
    assert {k: link.filters.get(k) for k in ("timing", "ux_baseline", "delta_ms", "factor")} == {
        "timing": "logon",
        "ux_baseline": "first_step",
        "delta_ms": None,
        "factor": 1.5,
    }
    client.force_login(make_user(demo.project))
    api = client.get(CAPACITY, {"timing": "logon", "baseline": "first_step", "factor": "1.5"}).json()
    ux = embedded(page)
    assert ux["body"] == api
    found = by_dialect(ux["body"])
    assert (found["2.1"]["baseline_ms"], found["2.1"]["threshold_ms"]) == (1000.0, 1500.0)
    assert found["2.1"]["saturation_users"] == pytest.approx(400 + 100 * 500 / 600, abs=1e-9)
    assert found["3.02"]["saturation_users"] == pytest.approx(812.5, abs=1e-9)
    words = html.unescape(re.sub(r"</?span[^>]*>", "", page))
    assert "logon time reaches 1.5x its baseline:</strong> at 483.3 users (interpolated" in words
    assert "at 812.5 users (interpolated" in words
    assert 'data-api="capacity?timing=logon&amp;baseline=first_step&amp;factor=1.5"' in page


def test_a_link_without_a_rule_shows_logon_against_baseline_plus_one_second(client, demo):
    _, page = share(client, demo, "?counter=&stat=avg")
    client.force_login(make_user(demo.project))
    api = client.get(CAPACITY, {"timing": "logon"}).json()
    found = by_dialect(embedded(page)["body"])
    assert found == by_dialect(api)
    assert found["2.1"]["saturation_users"] == pytest.approx(500 + 100 * 400 / 600, abs=1e-9)
    assert found["3.02"]["saturation_users"] == pytest.approx(875.0, abs=1e-9)
    words = html.unescape(re.sub(r"</?span[^>]*>", "", page))
    assert "at 566.7 users (interpolated" in words and "at 875 users (interpolated" in words
    assert (
        "Limiting:</strong> CPU at 775 users; runner-up: logon time exceeds its baseline by 1 s at 875 users"
        in words
    )


@pytest.mark.parametrize(
    "query",
    [
        "?timing=nope",  # not a timing of this campaign
        "?timing=logon&factor=-1",
        "?timing=logon&delta_ms=abc",
        "?timing=logon&ux_baseline=lowest:0",
        "?timing=logon&delta_ms=500&factor=2",
        "?delta_ms=500",  # a margin without its timing
    ],
)
def test_a_rule_the_api_refuses_is_refused_when_the_link_is_made(client, demo, query):
    client.force_login(make_user(demo.project, role="editor"))
    response = client.post(
        "/campaigns/demo-logon/shares/new", {"view": "capacity", "query": query}, follow=True
    )
    assert "cannot share these capacity filters" in response.content.decode()
    assert not ShareLink.objects.filter(campaign=demo).exists()

"""A comparison link keeps the logon phases' baseline of the page it was made on ("Share this view") and
embeds the logon-phases answer a member gets for it (issue 21 item 6); a campaign without phases has none."""

from __future__ import annotations

import json
import re

import pytest

from tests.factories import make_user
from tests.ingest import ingest_bytes
from tests.webapp.analysis.logon_study import add_logons
from tests.webapp.sharing.test_share_links import TIMINGS, make_link
from webapp.core.models import Scenario
from webapp.sharing.models import ShareLink

pytestmark = pytest.mark.django_db


def _embedded(html: str) -> dict:
    found = re.search(r'<script id="logon-phases-data" type="application/json">(.*?)</script>', html, re.S)
    assert found, "no logon phases embedded"
    return json.loads(found.group(1))


def test_a_comparison_link_freezes_the_phases_baseline_of_the_page_it_was_made_on(client, campaign):
    add_logons(campaign, {"redirection": "off"}, (0.8, 1.0, 1.2))
    add_logons(campaign, {"redirection": "on"}, (2.4, 3.0, 3.6))
    off = Scenario.objects.get(campaign=campaign, redirection="off")
    on = Scenario.objects.get(campaign=campaign, redirection="on")
    query = f"?baseline={off.pk}&show=headline&phases_baseline={on.pk}"
    url = make_link(client, campaign, view="compare", query=query)
    assert ShareLink.objects.get().filters["phases_baseline"] == on.pk

    html = client.get(url).content.decode()
    assert f'data-source="logon-phases?baseline={on.pk}"' in html
    answer = _embedded(html)
    client.force_login(make_user(campaign.project))
    api = client.get(f"/api/v1/campaigns/{campaign.slug}/logon-phases?baseline={on.pk}").json()
    assert answer == {k: v for k, v in api.items() if k != "data"}
    # By hand: profile load 1,800.5 ms off, 3 x that on; compared with "on", off is a third.
    profile = answer["comparisons"][0]
    assert (profile["phase"], profile["scenario"], profile["baseline"]) == ("profile", off.pk, on.pk)
    assert profile["factor"] == pytest.approx(1800.5 / 5401.5)
    assert answer["scenarios"][0]["phases"][0]["mean_ms"] == pytest.approx(1800.5)


def test_a_phases_baseline_that_is_no_id_is_refused_with_a_message(client, campaign):
    fast = ingest_bytes(campaign, TIMINGS, scenario={"av": "off"}, host="C1")
    client.force_login(make_user(campaign.project, role="editor"))
    response = client.post(
        f"/campaigns/{campaign.slug}/shares/new",
        {"view": "compare", "query": f"?baseline={fast.scenario.pk}&phases_baseline=first"},
        follow=True,
    )
    assert ShareLink.objects.count() == 0
    assert "phases_baseline must be a scenario id" in response.content.decode()


def test_a_comparison_without_logon_phases_has_no_phases_section(client, campaign):
    fast = ingest_bytes(campaign, TIMINGS, scenario={"av": "off"}, host="C1")
    html = client.get(
        make_link(client, campaign, view="compare", baseline=str(fast.scenario.pk))
    ).content.decode()
    assert "logon-phases-data" not in html and "logon_phases.js" not in html

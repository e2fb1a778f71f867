"""The capacity page states its units and refuses bad address values with a visible message."""

from __future__ import annotations

import html as html_lib
import re

import pytest

from tests.factories import make_user
from tests.webapp.dashboard.demo import load_demo
from tests.webapp.dashboard.test_pages import page_data
from webapp.dashboard.views.capacity_params import counter_unit

pytestmark = pytest.mark.django_db

CPU = "\\Processor(_Total)\\% Processor Time"


@pytest.fixture
def demo(client):
    campaign = load_demo()
    client.force_login(make_user(campaign.project))
    return campaign


def alert(html: str) -> list[str]:
    found = re.search(r'<div class="alert alert-error" role="alert" id="bad-params">(.*?)</div>', html, re.S)
    assert found, "the page shows the refused values"
    return [html_lib.unescape(item) for item in re.findall(r"<li>(.*?)</li>", found.group(1))]


def test_it_names_the_unit_of_each_counter():
    assert counter_unit(CPU) == "%"
    assert counter_unit("\\Memory\\Available MBytes") == "MB"
    assert counter_unit("\\Network Interface(x)\\Bytes Total/sec") == "bytes/s"
    assert counter_unit("\\PhysicalDisk(_Total)\\Disk Transfers/sec") == "transfers/s"
    assert counter_unit("\\PhysicalDisk(_Total)\\Avg. Disk sec/Transfer") == "s"
    assert counter_unit("\\PhysicalDisk(_Total)\\Avg. Disk Queue Length") == ""


def test_the_threshold_and_the_lead_carry_the_counters_unit(client, demo):
    html = client.get("/campaigns/demo/capacity/?threshold=70").content.decode()
    assert '<span id="threshold-unit" class="unit">%</span>' in html
    assert '<strong id="lead-threshold">70 %</strong>' in html
    assert 'id="bad-params"' not in html
    data = page_data(html)
    assert data["units"][CPU] == "%"
    assert data["units"]["\\Memory\\Available MBytes"] == "MB"
    assert data["units"]["\\PhysicalDisk(_Total)\\Avg. Disk Queue Length"] == ""
    memory = client.get(
        "/campaigns/demo/capacity/?counter=\\Memory\\Available MBytes&threshold=512"
    ).content.decode()
    assert '<strong id="lead-threshold">512 MB</strong>' in memory


def test_bad_address_values_are_refused_with_a_message_and_the_defaults_said(client, demo):
    url = (
        "/campaigns/demo/capacity/?trim=75&stat=bogus&threshold=abc&counter=nonsense&users=-4&redundancy=999"
    )
    html = client.get(url).content.decode()
    problems = alert(html)
    assert problems == [
        "counter 'nonsense' is not a server counter measured in this campaign's load-stepped runs",
        "stat must be avg, max or p95, not 'bogus'",
        "threshold must be a number, not 'abc'",
        "trim is a percentage of each step, from 0 to below 50, not '75'",
        "users is the population to serve, from 1 to 1,000,000,000, not '-4'",
        "redundancy is 0 to 100 spare servers, not '999'",
    ]
    assert "the page shows the defaults instead" in html
    assert page_data(html)["params"] == {"counter": CPU, "stat": "avg", "threshold": 80.0, "trim": 10.0}
    # The values that pass are kept beside the refused ones.
    kept = client.get("/campaigns/demo/capacity/?trim=49.5&stat=max&threshold=inf").content.decode()
    assert alert(kept) == ["threshold must be a number, not 'inf'"]
    assert page_data(kept)["params"] == {"counter": CPU, "stat": "max", "threshold": 80.0, "trim": 49.5}


def test_the_api_refuses_what_the_page_refuses(client, demo):
    for query in ("trim=75", "stat=bogus", "threshold=abc"):
        assert client.get(f"/api/v1/campaigns/demo/capacity?{query}").status_code in (400, 422), query
    assert client.get("/api/v1/campaigns/demo/capacity?trim=49.5").status_code == 200

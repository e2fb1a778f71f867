"""Every dashboard page renders for members, with its navigation, data and empty states; others see nothing."""

from __future__ import annotations

import json
import re

import pytest

from tests.factories import make_campaign, make_user
from tests.webapp.dashboard.demo import add_block_size_runs, load_demo

pytestmark = pytest.mark.django_db

PAGES = ("", "capacity/", "compare/", "block-size/", "traces/", "copies/", "uploads/")


def page_data(html: str) -> dict:
    found = re.search(r'<script id="page-data" type="application/json">(.*?)</script>', html, re.S)
    assert found, "the page carries its data as json_script"
    return json.loads(found.group(1))


@pytest.fixture
def demo(client):
    campaign = load_demo()
    client.force_login(make_user(campaign.project))
    return campaign


def test_every_page_renders_with_the_campaign_navigation(client, demo):
    for suffix in PAGES:
        response = client.get(f"/campaigns/demo/{suffix}")
        assert response.status_code == 200, suffix
        html = response.content.decode()
        for target in PAGES:
            assert f'href="/campaigns/demo/{target}"' in html
        assert html.count('aria-current="page"') == 1
        # No inline handlers and no CDN: the CSP allows only our own static files.
        assert "onsubmit=" not in html and "onclick=" not in html
        assert "https://" not in re.sub(r"<p[^>]*>.*?</p>", "", html, flags=re.S).split("<main")[0]


def test_pages_need_a_login_and_hide_other_projects(client, demo):
    client.logout()
    assert client.get("/campaigns/demo/capacity/").status_code == 302
    client.force_login(make_user(make_campaign().project))
    for suffix in PAGES:
        assert client.get(f"/campaigns/demo/{suffix}").status_code == 404, suffix


def test_the_capacity_page_offers_the_server_counters_and_states_the_method(client, demo):
    html = client.get("/campaigns/demo/capacity/?threshold=70&stat=max").content.decode()
    data = page_data(html)
    assert data["api"] == "/api/v1/campaigns/demo/capacity"
    assert data["params"] == {
        "counter": "\\Processor(_Total)\\% Processor Time",
        "stat": "max",
        "threshold": 70.0,
        "trim": 10.0,
    }
    options = re.findall(r'<option value="([^"]+)"', html.split('id="f-counter"')[1].split("</select>")[0])
    assert options == [
        "\\Processor(_Total)\\% Processor Time",
        "\\Memory\\Available MBytes",
        "\\Network Interface(Intel[R] 82574L Gigabit Network Connection)\\Bytes Total/sec",
        "\\PhysicalDisk(_Total)\\Avg. Disk Queue Length",
        "\\PhysicalDisk(_Total)\\Disk Transfers/sec",
    ]
    assert "the max reaches 70 (or FSCT reports overload)" in html
    assert "not reached" in html and "below first step" in html
    # Nonsense parameters fall back to the defaults instead of failing.
    data = page_data(
        client.get("/campaigns/demo/capacity/?threshold=abc&stat=median&counter=x").content.decode()
    )
    assert data["params"]["threshold"] == 80.0 and data["params"]["stat"] == "avg"


def test_the_compare_page_offers_measured_scenarios_as_baselines(client, demo):
    html = client.get("/campaigns/demo/compare/").content.decode()
    picker = html.split('id="f-baseline"')[1].split("</select>")[0]
    groups = re.findall(r'<optgroup label="([^"]+)"', picker)
    assert sorted(groups) == ["app-launch", "ca-share", "copy-migration", "logon"]
    # 7 app-launch, 2 CA, 6 copy configurations, 2 logon scenarios have results; FSCT ones have none.
    assert len(re.findall(r"<option ", picker)) == 17
    data = page_data(html)
    baseline = data["baseline"]
    assert re.search(rf'<option value="{baseline}" selected>redirection=none, study=app-launch', picker)
    assert "Welch's two-sided t-test" in html and "bootstrap" in html


def test_the_copies_page_reproduces_the_seed_003_times(client, demo):
    data = page_data(client.get("/campaigns/demo/copies/").content.decode())
    times = {(c["technique"], c["dataset"], c["options"]): c for c in data["configurations"]}
    robocopy_100m = times[
        (
            "robocopy",
            "95 GiB, 100,000,000 files of 1 KiB",
            "robocopy d:\\ \\\\host\\d$ * /s /copyall /zb /mt:128",
        )
    ]
    assert robocopy_100m["mean_s"] == 8 * 3600 + 12
    replica = times[("storage_replica", "1.45 TiB volume", "volume replication")]
    assert replica["n"] == 3
    assert replica["seconds"] == [14 * 60 + 27, 14 * 60 + 29, 14 * 60 + 23]
    assert replica["mean_s"] == pytest.approx((867 + 869 + 863) / 3)
    # Storage Replica beats every robocopy of the 1.45 TiB data.
    assert all(
        replica["mean_s"] < c["mean_s"] for c in data["configurations"] if c["technique"] == "robocopy"
    )
    assert data["resources"] == []  # the demo has no counters on the copy hosts


def test_the_block_size_page_shows_an_empty_state_without_diskspd_or_fio(client, demo):
    html = client.get("/campaigns/demo/block-size/").content.decode()
    assert "No DiskSpd or fio results in this campaign yet" in html
    assert "blocksize.js" not in html and "page-data" not in html


def test_the_block_size_page_groups_figures_by_the_runs_block_size(client, demo):
    expected = add_block_size_runs(demo)
    points = page_data(client.get("/campaigns/demo/block-size/").content.decode())["points"]
    mbps = {
        (p["label"].split("disk_type=")[1].split(",")[0], p["block_size"]): p
        for p in points
        if p["family"] == "mbps"
    }
    assert {key: p["value"] for key, p in mbps.items()} == pytest.approx(expected)
    assert mbps[("SSD", "1048576")]["block_bytes"] == 1048576 and mbps[("SSD", "4096")]["runs"] == 1
    latency = {p["stat"] for p in points if p["family"] == "latency"}
    assert latency == {"clat mean", "clat p99"}


def test_the_trace_explorer_lists_runs_with_counters_only(client, demo):
    html = client.get("/campaigns/demo/traces/").content.decode()
    runs = re.findall(r'<option value="(\d+)"[^>]*>([^<]+)</option>', html)
    assert [name.split(" — ")[0] for _, name in runs] == [
        "fsct-2008r2-smb2.1-ssd-av-off",
        "fsct-2012r2-smb3.02-ssd-av-off",
        "fsct-2012r2-smb3.02-ssd-av-on",
        "fsct-2012r2-smb3.02-ssd-av-on-access-off",
        "fsct-2012r2-smb3.02-hdd-av-off",
    ]
    data = page_data(html)
    assert data["run"] == int(runs[0][0]) and data["runs_api"] == "/api/v1/runs/"
    chosen = page_data(client.get(f"/campaigns/demo/traces/?run={runs[2][0]}").content.decode())
    assert chosen["run"] == int(runs[2][0])


def test_pages_of_an_empty_campaign_say_what_to_upload(client):
    campaign = make_campaign()
    client.force_login(make_user(campaign.project))
    base = f"/campaigns/{campaign.slug}/"
    assert "No run of this campaign has counter samples yet" in client.get(base + "traces/").content.decode()
    assert "No timing or benchmark results" in client.get(base + "compare/").content.decode()
    assert "No copy or migration results" in client.get(base + "copies/").content.decode()
    assert "No uploads yet" in client.get(base + "uploads/").content.decode()
    data = page_data(client.get(base + "capacity/").content.decode())
    assert data["params"]["counter"] == "\\Processor(_Total)\\% Processor Time"


def test_the_capacity_page_carries_the_sizing_form_with_its_values_from_the_url(client, demo):
    html = client.get("/campaigns/demo/capacity/?users=3000&target=65&redundancy=2").content.decode()
    assert 'id="f-users" name="users" type="number" min="1" step="1" value="3000"' in html
    assert 'value="65"' in html and 'id="f-redundancy"' in html and 'value="2"' in html
    data = page_data(html)
    assert data["sizing_api"] == "/api/v1/campaigns/demo/sizing"
    assert 'id="limits-table"' in html and 'id="comparisons"' in html and 'id="remarks"' in html
    assert "bootstrap" in html and "capacity_more.js" in html
    # Bad values fall back to the defaults instead of failing.
    fallback = client.get("/campaigns/demo/capacity/?users=-4&target=abc&redundancy=999").content.decode()
    assert (
        'value="1000"' in fallback
        and 'name="redundancy" type="number" min="0" max="100" step="1" value="1"' in fallback
    )

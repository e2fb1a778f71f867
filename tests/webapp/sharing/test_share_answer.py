"""The share report carries the answer (issue 15 item 5): headlines, short labels, every study, frozen filters."""

from __future__ import annotations

import html
import json
import re

import pytest
from django.core.cache import cache

from tests.factories import make_user
from tests.webapp.dashboard.demo import load_demo
from webapp.sharing import answer
from webapp.sharing.models import ShareLink

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo():
    cache.clear()
    return load_demo(kinds=("perfmon_csv", "timings", "robocopy", "diskspd_text"))


def unmarked(page: str) -> str:
    """The page without the spans marking where each figure is in the API answer (the words as read)."""
    return re.sub(r"</?span[^>]*>", "", page)


def share(client, campaign, **form):
    client.force_login(make_user(campaign.project, role="editor"))
    response = client.post(f"/campaigns/{campaign.slug}/shares/new", {"view": "overview", **form})
    assert response.status_code == 302
    page = client.get(f"/campaigns/{campaign.slug}/shares/").content.decode()
    found = re.search(r'<code id="new-share-url">http://testserver(/s/[^<]+)</code>', page)
    assert found, re.findall(r'<p class="alert">(.*?)</p>', page)
    assert 'id="copy-share-url"' in page  # the new link has a copy button
    client.logout()
    body = client.get(found.group(1))
    assert body.status_code == 200
    return html.unescape(body.content.decode())


def test_a_capacity_link_opens_with_one_headline_per_scenario_from_the_api_numbers(client, demo):
    client.force_login(make_user(demo.project))
    api = client.get("/api/v1/campaigns/demo/capacity").json()
    page = unmarked(share(client, demo, view="capacity"))
    answer_block = page[
        page.index('id="answer"') : page.index("Users before CPU reaches 80 % or a resource limit</h2>")
    ]
    stepped = [s for s in api["scenarios"] if s["steps"]]
    assert answer_block.count("<li>") == len(stepped) == 5
    for s in stepped:
        if s["bound"] == "interpolated" and (s["limiting"] or {}).get("resource", "cpu") == "cpu":
            assert f"carries {s['saturation_users']:,.0f} users before CPU reaches 80 %." in answer_block
    # Short labels: only what differs, never key=value lists.
    table = page[page.index('id="saturation-table"') :]
    assert "server_os=" not in table and "study=" not in table
    assert "SMB 3.02 on SSD with AV on-access-off carries 860 users before CPU reaches 80 %." in answer_block


def test_the_headline_names_the_limiting_resource_when_it_is_not_cpu():
    scenario = {
        "dims": {"smb_dialect": "3.02", "disk_type": "HDD", "av": "on"},
        "saturation_users": 820.0,
        "bound": "interpolated",
        "steps": [{"users": 500}, {"users": 1000}],
        "limiting": {
            "resource": "disk_latency",
            "counter": "\\PhysicalDisk(0 C:)\\Avg. Disk sec/Transfer",
            "users": 640.0,
        },
        "limits": [
            {
                "resource": "disk_latency",
                "counter": "\\PhysicalDisk(0 C:)\\Avg. Disk sec/Transfer",
                "limit": 0.02,
            }
        ],
    }
    keys = ["smb_dialect", "disk_type", "av"]
    sentence = answer.headline(scenario, keys, "", "avg", 80.0)
    assert (
        sentence
        == "SMB 3.02 on HDD with AV on carries 640 users before disk latency reaches 20 ms (CPU: 820 users)."
    )
    scenario["limiting"] = None
    assert (
        answer.headline(scenario, keys, "", "avg", 80.0)
        == "SMB 3.02 on HDD with AV on carries 820 users before CPU reaches 80 %."
    )
    scenario.update(bound="not_reached", saturation_users=None)
    assert "more than 1,000 users, the most tested" in answer.headline(scenario, keys, "", "avg", 80.0)


def test_a_link_freezes_every_filter_of_the_page_including_sizing(client, demo):
    query = (
        "?counter=%5CProcessor(_Total)%5C%25+Processor+Time&stat=max&threshold=70&trim=5"
        "&groups=disk_type&colour=av&users=3000&target=60&redundancy=1"
    )
    page = unmarked(share(client, demo, view="capacity", query=query))
    link = ShareLink.objects.get(campaign=demo, view="capacity")
    assert link.filters == {
        "counter": "\\Processor(_Total)\\% Processor Time",
        "stat": "max",
        "threshold": 70.0,
        "trim": 5.0,
        "groups": "disk_type",
        "colour": "av",
        "users": 3000,
        "target": 60.0,
        "redundancy": 1,
    }
    assert "before maximum CPU reaches 70 %." in page
    sizing = re.findall(r"<li>(\d+ servers? \(N\+1\) for 3,000 users with [^<]+)</li>", page)
    assert len(sizing) == 5, sizing
    assert "trimmed by 5 %" in page and "coloured by av" in page


def test_the_share_report_sizes_by_the_resource_that_binds_first_and_says_so(client, demo):
    page = unmarked(share(client, demo, view="capacity", query="?users=3000&target=60&redundancy=1"))
    answer_block = page[page.index('id="answer"') : page.index("</section>")]
    # HDD, AV off: the disk queue reaches 10 at 522 users, CPU 60 % only at 678. Five working servers carry
    # 5 x 522 = 2,610 < 3,000 users: ceil(3,000 / 522.x) = 6 + 1 spare = 7 (CPU alone: ceil(3,000 / 677.8) + 1 = 6).
    assert (
        "<li>7 servers (N+1) for 3,000 users with 2012 R2, SMB 3.02, HDD, AV off: 522 users per server before "
        "the disk queue reaches 10 (CPU reaches 60 % only at 678 users per server, which alone would mean 6 servers)."
        "</li>" in answer_block
    ), re.findall(r"<li>\d[^<]*HDD[^<]*</li>", answer_block)
    assert "users_per_server" not in page and "servers_interval" not in page
    # The chart and the table: the binding figure (522, disk queue) beside CPU's own 912 at 80 %.
    data = json.loads(page[page.index('id="capacity-data"') :].split(">", 1)[1].split("</script>", 1)[0])
    hdd = next(b for b in data["bars"] if "HDD" in b["label"] and "AV off" in b["label"])
    assert hdd["text"] == "522" and hdd["decided_by"] == "the disk queue reaches 10"
    assert (
        hdd["counter_users"] == pytest.approx(912, abs=0.5) and "CPU reaches 80 %: 912 users" in hdd["others"]
    )


def test_a_bad_frozen_filter_is_refused_when_the_link_is_made(client, demo):
    client.force_login(make_user(demo.project, role="editor"))
    client.post("/campaigns/demo/shares/new", {"view": "capacity", "query": "?users=-4"})
    client.post("/campaigns/demo/shares/new", {"view": "compare", "query": "?baseline=1&show=nonsense"})
    assert not ShareLink.objects.filter(campaign=demo).exists()


def test_an_overview_link_holds_every_study(client, demo):
    page = share(client, demo, view="overview")
    headings = re.findall(r"<h2>([^<]+)</h2>", page)
    for study in ("App-launch", "Ca-share", "Copy-migration", "Logon", "Smb-block-size"):
        assert any(h.startswith(study) for h in headings), (study, headings)
    assert "Users before CPU reaches 80 %" in page


def test_a_compare_link_shows_only_tested_verdicts(client, demo):
    from webapp.core.models import Scenario

    launches = [s for s in Scenario.objects.filter(campaign=demo) if s.dims.get("study") == "app-launch"]
    baseline = next(s for s in launches if s.dims.get("redirection") == "none")
    page = share(client, demo, view="compare", baseline=str(baseline.pk))
    assert "Significant: no" not in page and ">no<" not in page
    assert "yes, p < 0.001" in page  # the busy SMB 1 server's 178x Firefox launch (seed 002)
    assert 'id="factor-chart"' in page
    # Adobe Reader XI on a 2003 SMB 1 server at 50 % CPU: 85,488 ms, printed in seconds with its unit.
    assert re.search(
        r"<td data-name>Adobe Reader XI launch</td><td data-name>[^<]*2003 · SMB 1 · CPU load 50 %</td>"
        r'<td class="num" data-key="/results/\d+/mean" data-unit="ms" data-value="85488\.0">85\.5 s</td>',
        page,
    )


def test_a_compare_link_of_single_runs_says_too_few_runs(client, demo):
    # One DiskSpd report per dialect and power profile: every execution has one value per side.
    from webapp.core.models import Scenario

    sweeps = [s for s in Scenario.objects.filter(campaign=demo) if s.dims.get("study") == "smb-block-size"]
    assert len(sweeps) == 4
    page = share(client, demo, view="compare", baseline=str(sweeps[0].pk))
    table = page.split('aria-label="Comparison with the baseline"')[1].split("</table>")[0]
    verdicts = re.findall(r"<td>([^<]*)</td></tr>", table)
    assert verdicts and set(verdicts) == {"too few runs"}
    assert "not tested" not in page and "yes, p" not in page and "no, p" not in page


def test_block_size_and_copies_can_be_shared(client, demo):
    blocks = share(client, demo, view="blocksize")
    assert "total IOPS" in blocks and "KiB" in blocks and "Users before" not in blocks
    copies = share(client, demo, view="copies")
    assert "Copy-migration</h2>" in copies and "App-launch</h2>" not in copies


def test_shared_reports_use_plain_words_for_metrics_and_dimensions(client, demo):
    import html
    import re

    from tests.webapp.dashboard.demo import add_block_size_runs
    from webapp.core.models import Scenario
    from webapp.sharing.models import ShareLink

    add_block_size_runs(demo)
    chosen = {
        v for s in Scenario.objects.filter(campaign=demo) for v in s.dims.values()
    }  # the tester's words
    for view in ("overview", "blocksize", "copies"):
        _, token = ShareLink.issue(demo, view, {})
        page = html.unescape(client.get(f"/s/{token}/").content.decode())
        text = re.sub(r"<[^>]+>", " ", re.sub(r"<script.*?</script>", "", page, flags=re.S))
        codes = set(re.findall(r"\b[a-z]+(?:\.[a-z0-9_]+)+\b|\b[a-z]+_[a-z0-9_]+\b", text)) - chosen
        assert codes == set(), (view, sorted(codes))
        if view != "copies":
            assert "read completion latency, 99th percentile (ms)" in text and "read IOPS" in text
        assert "SMB dialect" in text and "Disk type (HDD/SSD)" in text

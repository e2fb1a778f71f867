"""In Chromium: every page's charts draw, controls recompute, and downloads hold exactly the API's numbers."""

from __future__ import annotations

import csv
import io
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.browser.conftest import COLOURED_PIXELS
from webapp.core.models import Scenario

pytestmark = pytest.mark.browser


def open_page(page, site, path: str) -> None:
    page.goto(site.url + path)
    page.wait_for_selector("body[data-state=ready]")


def drawn(page) -> list[int]:
    """Coloured pixels of every visible chart canvas on the page."""
    return [canvas.evaluate(COLOURED_PIXELS) for canvas in page.locator(".chart-box:visible canvas").all()]


def download_csv(page, card) -> list[dict[str, str]]:
    with page.expect_download() as info:
        card.locator("button[data-action=csv]").click()
    text = info.value.path().read_text(encoding="utf-8")
    return list(csv.DictReader(io.StringIO(text)))


def number(text: str) -> float | None:
    return float(text) if text != "" else None


def assert_fits_and_clean(page, site) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 1280, f"the page is {width} px wide at a 1280 px window"
    assert site.console == [], site.console  # no script errors, no CSP violations, no missing files


def sized(page) -> None:
    """Wait for the capacity page's sizing, which it asks for after the page is ready (capacity_more.js)."""
    page.wait_for_selector("#sizing-table td.servers")
    page.wait_for_function("() => Chart.getChart(document.querySelector('#slot-servers canvas'))")


def test_the_capacity_planner_draws_and_the_threshold_changes_the_answer(page, site):
    open_page(page, site, "/campaigns/demo/capacity/")
    sized(page)
    pixels = drawn(page)
    assert len(pixels) == 1 + 1 + 1 + 5  # the bars, servers needed, the overview, five scenarios
    assert all(count > 300 for count in pixels), pixels
    api = site.client.get("/api/v1/campaigns/demo/capacity").json()
    av_on = next(s for s in api["scenarios"] if s["dims"].get("av") == "on")
    cell = page.locator(f'[data-scenario="{av_on["scenario"]}"] td.saturation')
    assert cell.inner_text() == "833 users"

    page.fill("#f-threshold", "70")
    page.wait_for_function(
        "id => document.querySelector(`[data-scenario='${id}'] td.saturation`).textContent !== '833 users'"
        " && document.body.dataset.state === 'ready'",
        arg=av_on["scenario"],
    )
    lower = site.client.get("/api/v1/campaigns/demo/capacity?threshold=70").json()
    expected = next(s for s in lower["scenarios"] if s["scenario"] == av_on["scenario"])
    assert cell.inner_text() == expected["saturation_text"]
    assert expected["saturation_users"] < av_on["saturation_users"]
    assert "threshold=70" in page.url  # the view's URL keeps its parameters

    # The bar chart's CSV holds exactly the API's answer at the new threshold.
    rows = download_csv(page, page.locator(".chart-card").first)
    assert sorted((r["scenario"], number(r["saturation_users"]), r["bound"]) for r in rows) == sorted(
        (s["label"], s["saturation_users"], s["bound"]) for s in lower["scenarios"]
    )
    # And the overview's CSV every step's statistic.
    steps = download_csv(page, page.locator("#slot-overview .chart-card"))
    assert [(r["scenario"], int(r["users"]), number(r["value"]), int(r["samples"])) for r in steps] == [
        (s["label"], step["users"], step["avg"], step["samples"])
        for s in lower["scenarios"]
        for step in s["steps"]
    ]
    assert_fits_and_clean(page, site)


def test_a_chart_exports_as_png(page, site):
    open_page(page, site, "/campaigns/demo/capacity/")
    with page.expect_download() as info:
        page.locator(".chart-card").first.locator("button[data-action=png]").click()
    data = info.value.path().read_bytes()
    assert info.value.suggested_filename == "users-before-saturation.png"
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000


def test_the_statistic_control_switches_to_the_95th_percentile(page, site):
    open_page(page, site, "/campaigns/demo/capacity/")
    page.select_option("#f-stat", "p95")
    page.wait_for_function(
        "() => location.search.includes('stat=p95') && document.body.dataset.state === 'ready'"
    )
    api = site.client.get("/api/v1/campaigns/demo/capacity?stat=p95").json()
    table = page.locator("#steps-table tbody tr").first.locator("td").nth(4).inner_text()
    assert table != "—" and float(table) == pytest.approx(api["scenarios"][0]["steps"][0]["p95"], abs=0.01)


def test_the_compare_page_shows_factors_and_its_csv_equals_the_api(page, site):
    open_page(page, site, "/campaigns/demo/compare/")
    assert all(count > 300 for count in drawn(page))
    baseline = parse_qs(urlsplit(page.url).query)["baseline"][0]
    api = site.client.get(f"/api/v1/campaigns/demo/compare?baseline={baseline}").json()
    rows = download_csv(page, page.locator(".chart-card").first)
    expected = [r for r in api["results"] if not r["is_baseline"] and r["factor"] is not None]
    assert sorted((r["metric"], r["scenario"], number(r["factor"])) for r in rows) == sorted(
        (r["metric"], r["label"], r["factor"]) for r in expected
    )
    assert len(rows) == 30  # 5 applications x 6 redirected scenarios (seed 002)
    firefox = page.locator("#factor-table tbody tr", has_text="Firefox launch").inner_text()
    assert "178\u00d7 *" in firefox  # 178x: Firefox on a busy SMB 1 server, significant
    # Picking another baseline asks again.
    ca_on = Scenario.objects.get(campaign=site.campaign, ca_share="on")
    page.select_option("#f-baseline", str(ca_on.pk))
    page.wait_for_function(
        "id => document.body.dataset.state === 'ready' && location.search.includes('baseline=' + id)",
        arg=ca_on.pk,
    )
    factors = page.locator("#factor-table tbody td.num").all_inner_texts()
    assert "0.678\u00d7 *" in factors  # 1 / 1.475: non-CA 1.475x faster (seed 004)
    assert_fits_and_clean(page, site)


def test_the_trace_explorer_draws_zooms_into_finer_buckets_and_fits_a_line(page, site):
    open_page(page, site, "/campaigns/demo/traces/")
    pixels = drawn(page)
    assert len(pixels) == 5 + 1 and all(count > 300 for count in pixels), pixels
    assert "R² = 0.99" in page.locator("#slot-scatter .chart-note").inner_text()
    first = page.locator("#slot-traces .chart-card").first
    box = first.locator("canvas").bounding_box()
    with page.expect_response(lambda r: "/trace?" in r.url and "start=" in r.url) as zoomed:
        page.mouse.move(box["x"] + box["width"] * 0.40, box["y"] + box["height"] / 2)
        page.mouse.down()
        page.mouse.move(box["x"] + box["width"] * 0.50, box["y"] + box["height"] / 2, steps=5)
        page.mouse.up()
    body = zoomed.value.json()
    page.wait_for_selector("body[data-state=ready]")
    assert body["bucket_seconds"] < 10  # the whole run used 10-second buckets
    assert page.locator("#status").inner_text().startswith("Zoomed:")
    # The chart's CSV is exactly the zoomed buckets the API sent.
    rows = download_csv(page, first)
    cpu = next(s for s in body["series"] if s["counter"] == "% Processor Time")
    assert [(r["time"], number(r["avg"]), int(r["n"])) for r in rows] == [
        (p["t"], p["avg"], p["n"]) for p in cpu["points"]
    ]
    assert_fits_and_clean(page, site)


def test_the_copy_and_block_size_pages_draw_their_figures(page, site):
    open_page(page, site, "/campaigns/demo/copies/")
    assert [count > 300 for count in drawn(page)] == [True]
    rows = download_csv(page, page.locator(".chart-card").first)
    replica = next(r for r in rows if r["technique"] == "storage_replica")
    assert replica["rounds"] == "3" and float(replica["mean_s"]) == pytest.approx((867 + 869 + 863) / 3)
    assert_fits_and_clean(page, site)

    open_page(page, site, "/campaigns/demo/block-size/")
    pixels = drawn(page)
    assert len(pixels) == 3 and all(count > 300 for count in pixels), pixels
    mbps = download_csv(page, page.locator(".chart-card").first)
    assert {(r["block_size"], float(r["value"])) for r in mbps if "SSD" in r["scenario"]} == {
        ("4096", 40.0),
        ("65536", 640.0),
        ("1048576", 10240.0),
    }
    assert_fits_and_clean(page, site)


def test_tables_sort_and_pages_print_without_controls(page, site):
    open_page(page, site, "/campaigns/demo/capacity/")
    header = page.locator("#saturation-table th", has_text="Users before saturation")
    header.locator("button").click()
    cells = page.locator("#saturation-table td.saturation").all_inner_texts()
    assert cells[0] == "833 users" and cells[-1] == "~1,031 users (extrapolated beyond 1,000)"
    for path in ("/campaigns/demo/", "/campaigns/demo/uploads/"):
        page.goto(site.url + path)
        assert (
            page.locator("table").count() == page.locator("table.sortable[data-sortable-ready]").count() > 0
        )
        assert_fits_and_clean(page, site)
    open_page(page, site, "/campaigns/demo/capacity/")
    sized(page)
    page.emulate_media(media="print")
    assert page.locator("nav.nav").is_hidden() and page.locator("#capacity-form").is_hidden()
    assert page.locator("button[data-action=csv]").first.is_hidden()
    assert all(count > 300 for count in drawn(page))


def test_sizing_keeps_its_values_in_the_url_and_the_page_reads_at_390_px(page, site):
    page.set_viewport_size({"width": 390, "height": 844})
    open_page(page, site, "/campaigns/demo/capacity/?users=3000&target=60&redundancy=1")
    api = site.client.get("/api/v1/campaigns/demo/sizing?users=3000&target=60&redundancy=1").json()
    page.wait_for_selector("#sizing-table td.servers")
    servers = page.locator("#sizing-table td.servers").all_inner_texts()
    assert sorted(servers) == sorted(str(s["servers"]) for s in api["scenarios"] if s["servers"] is not None)
    assert "6" in servers  # AV on: 640 users per server at 60 %, ceil(3,000 / 640) + 1
    page.fill("#f-redundancy", "2")
    page.locator("#sizing-form button").click()
    page.wait_for_function("() => new URLSearchParams(location.search).get('redundancy') === '2'")
    page.wait_for_function("() => document.querySelector('#sizing-status').textContent.includes('N+2')")
    assert "users=3000" in page.url and "threshold=80" in page.url
    # Limits, runner-up and remarks are on the page; the bar CSV carries the interval and the limiting resource.
    assert page.locator("#limits-table tr[data-limiting=yes]").count() >= 4
    assert "disk queue at 522, 390 before cpu" in page.locator("#saturation-table").inner_text()
    assert page.locator("#remarks li[data-kind=spiky]").count() >= 1
    rows = download_csv(page, page.locator("#slot-saturation .chart-card"))
    hdd = next(r for r in rows if "HDD" in r["scenario"])
    assert hdd["limiting_resource"] == "disk_queue" and hdd["runner_up"] == "cpu"
    # The bar is the binding figure: the disk queue at 522 (between its steps 500 and 600), not CPU's 912.
    assert hdd["binding_resource"] == "disk_queue" and number(hdd["binding_users"]) == pytest.approx(
        522, abs=0.5
    )
    assert number(hdd["plotted"]) == number(hdd["binding_users"])
    assert number(hdd["saturation_users"]) == pytest.approx(912, abs=0.5)
    assert number(hdd["interval_low"]) == 500 and number(hdd["interval_high"]) == 600
    assert (
        "522 users, disk queue, before CPU (912)" in page.locator("#slot-saturation .chart-note").inner_text()
    )
    # Sizing at 60 %, now N+2: the disk queue decides HDD; ceil(3,000 / 522.x) + 2 = 8 servers, CPU alone
    # ceil(3,000 / 677.8) + 2 = 7.
    sizing_rows = download_csv(page, page.locator("#slot-servers .chart-card"))
    hdd_sized = next(r for r in sizing_rows if "HDD" in r["name"])
    assert hdd_sized["binding_resource"] == "disk_queue" and hdd_sized["servers"] == "8"
    assert hdd_sized["counter_servers"] == "7"
    assert "disk queue limit" in page.locator("#sizing-table").inner_text()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide at a 390 px window"
    assert site.console == [], site.console

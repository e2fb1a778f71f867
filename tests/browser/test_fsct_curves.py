"""In Chromium: the capacity page and a shared capacity report draw FSCT's throughput and response times
against users with the overload step marked, and every point drawn, printed or downloaded is the API's.

Screenshots at 1440 and 390 px land in var/screenshots/fsct/ for a look by eye.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings

from tests.browser.figures import Answers, scan
from tests.browser.test_display_oracle import check
from tests.browser.test_pages import download_csv, number, open_page
from tests.webapp.dashboard.demo import add_fsct_results
from webapp.sharing.models import ShareLink
from webapp.sharing.report import capacity_filters

pytestmark = pytest.mark.browser

# Marked figures of the FSCT section: per step users, throughput, overload and errors, and a response time per
# operation the file has (AV on 3, AV off 4), 10 steps each; and each scenario's overload sentence.
FIGURES = 10 * (4 + 3) + 10 * (4 + 4) + 2

# What the chart holds: per dataset its FSCT tag and points, per point its style; the vertical marks.
CHART = """selector => {
    const chart = Chart.getChart(document.querySelector(selector));
    const marks = Object.values(chart.options.plugins.annotation.annotations);
    return {
        datasets: chart.data.datasets.map(d => ({fsct: d.fsct, axis: d.yAxisID, points: d.data.map(p => [p.x, p.y]),
            styles: d.pointStyle})),
        marks: marks.map(a => ({axis: a.scaleID, value: a.value, label: a.label.content})),
        axes: [chart.options.scales.y.title.text, chart.options.scales.y1.title.text],
    };
}"""


def shots() -> Path:
    folder = Path(settings.VAR_DIR) / "screenshots" / "fsct"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def assert_chart_is_the_api(drawn, api) -> None:
    """Every dataset's points are the API's figures; the overloaded steps and only they are triangles."""
    scenarios = {s["scenario"]: s for s in api["scenarios"]}
    seen = set()
    for dataset in drawn["datasets"]:
        tag = dataset["fsct"]
        s = scenarios[tag["scenario"]]
        if tag["figure"] == "throughput_sps":
            assert dataset["axis"] == "y"
            assert dataset["points"] == [[st["users"], st["throughput_sps"]] for st in s["steps"]]
            assert dataset["styles"] == ["triangle" if st["overloaded"] else "circle" for st in s["steps"]]
        else:
            assert dataset["axis"] == "y1"
            k = s["operations"].index(tag["operation"])
            assert dataset["points"] == [[st["users"], st["responses"][k]["ms"]] for st in s["steps"]]
        seen.add((tag["scenario"], tag["figure"], tag.get("operation")))
    expected = {(s["scenario"], "throughput_sps", None) for s in api["scenarios"]} | {
        (s["scenario"], "response_ms", op) for s in api["scenarios"] for op in s["operations"]
    }
    assert seen == expected
    overloads = [s["overload_users"] for s in api["scenarios"] if s["overload_users"] is not None]
    assert [(m["axis"], m["value"]) for m in drawn["marks"]] == [("x", u) for u in overloads]
    assert drawn["axes"] == ["throughput (scenarios/s)", "response time (ms)"]


def read_back(page, site) -> int:
    """Every marked figure of the page checked against its API answer (the display oracle's rule)."""
    labels = [s["label"] for s in site.client.get("/api/v1/campaigns/demo/runs").json()["scenarios"]]
    figures, _ = scan(page, labels)
    answers = Answers(site.client, "/api/v1/campaigns/demo")
    count = 0
    for figure in figures:
        api = answers.path(figure.api)
        if "/fsct" not in api:
            continue
        check(figure, answers[api])
        count += 1
    return count


def test_the_capacity_page_draws_fsct_curves_with_the_overload_step(page, site):
    add_fsct_results(site.campaign)
    api = site.client.get("/api/v1/campaigns/demo/fsct").json()
    on = next(
        s for s in api["scenarios"] if s["dims"].get("av") == "on" and s["dims"]["study"] == "fsct-results"
    )
    assert (on["overload_users"], on["last_good_users"]) == (900, 800)
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        open_page(page, site, "/campaigns/demo/capacity/")
        page.wait_for_selector("#fsct[data-state=ready]")
        assert_chart_is_the_api(page.evaluate(CHART, "#slot-fsct canvas"), api)
        assert (
            "overloaded at 900 users; 800 users the last step without"
            in page.locator("#fsct-overload").inner_text()
        )
        # The table: 20 steps, the overload step marked; its figures are the API's in the unit printed.
        assert page.locator("#fsct-table tbody tr").count() == 20
        marked = page.locator('#fsct-table tr[data-overload-step="yes"]')
        assert marked.count() == 1 and marked.locator("td").nth(1).inner_text() == "900"
        assert read_back(page, site) == FIGURES
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.locator("#fsct").screenshot(path=str(shots() / f"capacity-{width}.png"))
    # The CSV is the API's answer, a row per scenario and step.
    rows = download_csv(page, page.locator("#slot-fsct .chart-card"))
    assert [(int(r["users"]), number(r["throughput_sps"]), r["overload_step"]) for r in rows[:10]] == [
        (st["users"], st["throughput_sps"], "yes" if st["users"] == 900 else "") for st in on["steps"]
    ]
    assert number(rows[8]["response_ms Word open and save"]) == 1320.0
    assert site.console == [], site.console


def test_a_campaign_without_fsct_results_has_no_fsct_section(page, site):
    open_page(page, site, "/campaigns/demo/capacity/")
    assert page.locator("#fsct").count() == 0
    assert site.console == [], site.console


def test_the_shared_capacity_report_draws_the_same_curves(page, site):
    add_fsct_results(site.campaign)
    api = site.client.get("/api/v1/campaigns/demo/fsct").json()
    _, token = ShareLink.issue(site.campaign, "capacity", capacity_filters({}))
    page.context.clear_cookies()
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{site.url}/s/{token}/")
        page.wait_for_selector("body[data-state=ready]")
        assert_chart_is_the_api(page.evaluate(CHART, "#fsct-chart"), api)
        assert (
            "overloaded at 900 users; 800 users the last step without" in page.locator("#fsct").inner_text()
        )
        assert read_back(page, site) == FIGURES
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.locator("#fsct").screenshot(path=str(shots() / f"share-{width}.png"))
    with page.expect_download() as info:
        page.click("#fsct-csv")
    assert info.value.suggested_filename == "fsct-curves.csv"
    assert site.console == [], site.console

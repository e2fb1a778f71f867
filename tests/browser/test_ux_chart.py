"""In Chromium, on the "Logon load 2015" demo: the capacity page and a shared capacity report draw logon time
against users per scenario -- the per-step mean with its p95 band, the baseline and threshold lines, the
crossing marked -- and every point drawn, printed or downloaded is the API's
(``GET /api/v1/campaigns/demo-logon/capacity?timing=logon``).

By hand (webapp/demo/logon_load.py): baseline = the first step's mean, 1,000 ms in both scenarios; threshold
1,000 + 1,000 = 2,000 ms; SMB 2.1 crosses between 1,600 ms at 500 and 2,200 ms at 600 users:
500 + 100 x 400 / 600 = 566.7 users; SMB 3.02 between 1,400 ms at 800 and 2,200 ms at 900: 875 users.
Screenshots at 1440 and 390 px land in var/screenshots/ux/ for a look by eye.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings

from tests.browser.figures import Answers, scan
from tests.browser.test_display_oracle import check
from tests.browser.test_pages import download_csv, number
from webapp.sharing.models import ShareLink
from webapp.sharing.report import capacity_filters

pytestmark = pytest.mark.browser

API = "/api/v1/campaigns/demo-logon/capacity?timing=logon&baseline=first_step&delta_ms=1000.0"
CROSSING = {"2.1": (566.7, "566.7 users"), "3.02": (875.0, "875 users")}
# Logon means per step (LOGON_MS of the demo): 100..1,000 users.
MEANS = {
    "2.1": [1000, 1000, 1000, 1000, 1600, 2200, 2800, 3400, 4000, 4600],
    "3.02": [1000, 1000, 1000, 1000, 1000, 1000, 1000, 1400, 2200, 3000],
}
# Per scenario: 10 steps x (users, mean, median, p95, timings, clients); saturation, interval, baseline, threshold;
# limiting users and the runner-up's users and margin.
FIGURES = 2 * (10 * 6 + 4 + 3)

# What a chart holds: its datasets' tags and points, and its annotations.
CHART = """canvas => {
    const chart = Chart.getChart(canvas);
    const marks = chart.options.plugins.annotation.annotations;
    return {
        datasets: chart.data.datasets.map(d => ({figure: d.ux.figure, label: d.label, fill: d.fill,
            points: d.data.map(p => [p.x, p.y])})),
        marks: Object.fromEntries(Object.entries(marks).map(([k, a]) => [k, {type: a.type, value: a.value,
            x: a.xValue, y: a.yValue, text: a.type === "label" ? a.content : a.label.content}])),
        y: chart.options.scales.y.title.text,
    };
}"""


def shots() -> Path:
    folder = Path(settings.VAR_DIR) / "screenshots" / "ux"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def dialect(scenario: dict) -> str:
    return scenario["dims"]["smb_dialect"]


def assert_chart_is_the_api(drawn: dict, s: dict) -> None:
    key = dialect(s)
    figures = {d["figure"]: d for d in drawn["datasets"]}
    assert set(figures) == {"mean", "p95", "baseline", "threshold", "crossing"}
    assert figures["mean"]["points"] == [[st["users"], st["mean"]] for st in s["steps"]]
    assert [y for _, y in figures["mean"]["points"]] == pytest.approx(MEANS[key], abs=1e-6)
    assert figures["p95"]["points"] == [[st["users"], st["p95"]] for st in s["steps"]]
    assert figures["p95"]["fill"] == "-1" and "shaded from the mean" in figures["p95"]["label"]
    # Baseline and threshold: horizontal lines across the users tested.
    assert figures["baseline"]["points"] == [[100, 1000.0], [1000, 1000.0]]
    assert figures["threshold"]["points"] == [[100, 2000.0], [1000, 2000.0]]
    ((x, y),) = figures["crossing"]["points"]
    assert (round(x, 1), y) == (CROSSING[key][0], 2000.0)
    marks = drawn["marks"]
    assert set(marks) == {"crossing"} and marks["crossing"]["type"] == "label"
    assert marks["crossing"]["text"] == CROSSING[key][1]
    assert (marks["crossing"]["x"], marks["crossing"]["y"]) == (s["saturation_users"], 2000.0)
    assert drawn["y"] == "logon (ms)"


def read_back(page, site) -> int:
    """Every marked figure of the UX section checked against its API answer (the display oracle's rule)."""
    figures, strays = scan(page, [])
    assert [s for s in strays if "ux" in s["where"]] == []
    answers = Answers(site.client, "/api/v1/campaigns/demo-logon")
    count = 0
    for figure in figures:
        api = answers.path(figure.api)
        if "timing=" not in api:
            continue
        check(figure, answers[api])
        count += 1
    return count


def charts_by_dialect(page, api: dict, cards: str) -> dict[str, dict]:
    out = {}
    for s in api["scenarios"]:
        canvas = page.locator(f'{cards}[data-scenario="{s["scenario"]}"] canvas')
        out[dialect(s)] = canvas.evaluate(CHART)
    return out


def test_the_capacity_page_draws_logon_time_against_users_with_the_crossing(page, logon_site):
    site = logon_site
    api = site.client.get(API).json()
    assert {dialect(s): (s["baseline_ms"], s["threshold_ms"]) for s in api["scenarios"]} == {
        "2.1": (1000.0, 2000.0),
        "3.02": (1000.0, 2000.0),
    }
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(site.url + "/campaigns/demo-logon/capacity/?timing=logon")
        page.wait_for_selector("body[data-state=ready] #ux[data-state=ready]")
        drawn = charts_by_dialect(page, api, "#slot-ux .chart-card")
        for s in api["scenarios"]:
            assert_chart_is_the_api(drawn[dialect(s)], s)
        # The table: 10 steps per scenario, in ms as the API gives them.
        rows = page.locator("#ux-table tbody tr")
        assert rows.count() == 20
        first = rows.nth(0).locator("td").all_inner_texts()
        assert first[1:3] == ["100", "1,000 ms"] and first[5:] == ["12", "4"]
        sentences = page.locator("#slot-ux").inner_text()
        assert "at 566.7 users (interpolated" in sentences and "at 875 users (interpolated" in sentences
        assert (
            "Limiting: logon time exceeds its baseline by 1 s at 567 users; runner-up: CPU at 833 users"
            in sentences
        )
        assert (
            "Limiting: CPU at 775 users; runner-up: logon time exceeds its baseline by 1 s at 875 users"
            in sentences
        )
        assert read_back(page, site) == FIGURES
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        assert "timing=logon" in page.url and "ux_baseline=first_step" in page.url
        page.locator("#ux").screenshot(path=str(shots() / f"capacity-{width}.png"))
    # The CSV is the API's answer, a row per step.
    card = page.locator(f'#slot-ux .chart-card[data-scenario="{api["scenarios"][0]["scenario"]}"]')
    rows = download_csv(page, card)
    s = api["scenarios"][0]
    assert [(int(r["users"]), number(r["mean_ms"]), number(r["p95_ms"]), int(r["n"])) for r in rows] == [
        (st["users"], st["mean"], st["p95"], st["n"]) for st in s["steps"]
    ]
    assert {(r["baseline_ms"], r["threshold_ms"], r["bound"]) for r in rows} == {
        ("1000", "2000", "interpolated")
    }
    assert number(rows[0]["saturation_users"]) == pytest.approx(566.6667, abs=1e-3)
    with page.expect_download() as info:
        card.locator("button[data-action=png]").click()
    assert info.value.suggested_filename.endswith(".png")
    assert site.console == [], site.console


def test_a_factor_rule_in_the_address_asks_the_api_with_it_and_a_bad_one_is_named(page, logon_site):
    site = logon_site
    # Factor 1.5: threshold 1,500 ms; SMB 2.1 crosses between 1,000 at 400 and 1,600 at 500: 483.3 users.
    page.goto(site.url + "/campaigns/demo-logon/capacity/?timing=logon&factor=1.5")
    page.wait_for_selector("body[data-state=ready] #ux[data-state=ready]")
    assert "at 483.3 users" in page.locator("#slot-ux").inner_text()
    assert page.locator("#f-ux-margin").input_value() == "factor"
    page.goto(site.url + "/campaigns/demo-logon/capacity/?timing=nope&factor=-2")
    problems = page.locator("#bad-params").inner_text()
    assert (
        "timing 'nope' is not a timing of this campaign" in problems
        and "factor is a positive number" in problems
    )
    page.wait_for_selector("#ux[data-state=ready]")
    assert "at 566.7 users" in page.locator("#slot-ux").inner_text()  # the defaults instead
    assert site.console == [], site.console


def test_the_shared_capacity_report_draws_the_same_charts(page, logon_site):
    site = logon_site
    api = site.client.get(API).json()
    _, token = ShareLink.issue(site.campaign, "capacity", capacity_filters({"timing": "logon"}))
    page.context.clear_cookies()
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{site.url}/s/{token}/")
        page.wait_for_selector("body[data-state=ready] #ux[data-state=ready]")
        drawn = charts_by_dialect(page, api, "#ux .ux-card")
        for s in api["scenarios"]:
            assert_chart_is_the_api(drawn[dialect(s)], s)
        assert page.locator("#ux-table tbody tr").count() == 20
        sentences = page.locator("#ux").inner_text()
        assert "at 566.7 users (interpolated" in sentences and "at 875 users (interpolated" in sentences
        assert read_back(page, site) == FIGURES
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.locator("#ux").screenshot(path=str(shots() / f"share-{width}.png"))
    with page.expect_download() as info:
        page.locator("#ux .ux-card").first.locator("button[data-action=csv]").click()
    assert info.value.suggested_filename.startswith("ux-logon-")
    assert site.console == [], site.console

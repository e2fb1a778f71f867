"""Issue 21 item 6 on the page: "Where the logon time goes" on the compare page and on a share report.

The chart and tables are read back against ``GET /api/v1/campaigns/demo/logon-phases`` at a desktop and a
phone width, on the built logons of ``phases_site`` (tests/browser/conftest.py): redirection off at scales
0.8, 1.0, 1.2 and on at 2.4, 3.0, 3.6 without Shell-Core. By hand: profile load 1,800.5 ms (stdev 360.1)
and 3x that with redirection; the user policy 4,000 of which Folder Redirection 2,500 and Registry 120, so
the policy's other time is 1,380 (4,140 on); shell start 1,500 and total 7,350 off, missing on.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.figures import assert_printed, per_printed
from tests.browser.test_pages import open_page
from webapp.core.models import Scenario
from webapp.sharing import report
from webapp.sharing.models import ShareLink

pytestmark = pytest.mark.browser

WIDTHS = (1440, 390)
TIMES = "\u00d7"
SEGMENTS = ["profile", "cse:Folder Redirection", "cse:Registry", "group_policy_other", "shell"]
# The chart as drawn: its unit, category labels and each segment's values.
READ_CHART = """() => {
    const canvas = document.querySelector("#logon-phases canvas");
    const chart = Chart.getChart(canvas);
    return {unit: canvas.dataset.unit, labels: chart.data.labels,
        datasets: chart.data.datasets.map(d => ({phase: d.phase, label: d.label, data: d.data, n: d.n,
            dashed: d.dashed}))};
}"""
READ_TABLE = """table => Array.from(table.querySelectorAll("tbody tr")).map(
    tr => Array.from(tr.cells).map(td => td.textContent.trim()))"""


def _phase(scenario: dict[str, Any], key: str) -> dict[str, Any]:
    return next(p for p in scenario["phases"] if p["phase"] == key)


def _segment(scenario: dict[str, Any], key: str) -> float | None:
    return (
        scenario["group_policy_other_ms"] if key == "group_policy_other" else _phase(scenario, key)["mean_ms"]
    )


def _check_section(page, api: dict[str, Any], width: int) -> None:
    page.wait_for_selector("#logon-phases[data-state=ready]")
    off, on = api["scenarios"]
    # The answer, by hand (see the module docstring).
    assert [_segment(off, k) for k in SEGMENTS] == pytest.approx([1800.5, 2500, 120, 1380, 1500])
    assert [_segment(on, k) for k in SEGMENTS[:-1]] == pytest.approx([5401.5, 7500, 360, 4140])
    assert _phase(on, "shell")["missing"] and _segment(on, "shell") is None

    chart = page.evaluate(READ_CHART)
    assert chart["unit"] == "ms"  # the longest segment or total, 7,500 ms, is under 10 s
    assert [d["phase"] for d in chart["datasets"]] == SEGMENTS
    for drawn in chart["datasets"]:
        assert drawn["data"] == [_segment(off, drawn["phase"]), _segment(on, drawn["phase"])], drawn["phase"]
        # The inferred phase is outlined dashed where it was measured; nothing is drawn where it is missing.
        assert drawn["dashed"] == [drawn["phase"] == "shell", False]
    assert chart["datasets"][-1]["data"][1] is None  # missing: not drawn, never 0
    assert chart["labels"] == [
        ["redirection=off", "3 logons", "total 7,350 ms"],
        ["redirection=on", "3 logons", "total not in the logs"],
    ]
    missing = page.locator("#logon-phases .phases-missing li").all_inner_texts()
    assert missing == ["redirection=on: Shell start (inferred), Total logon"]

    means = page.locator("#logon-phases table").nth(0).evaluate(READ_TABLE)
    assert means[0] == ["User profile load", "1,801 ± 360 ms (n=3)", "5,402 ± 1,080 ms (n=3)"]
    assert means[1] == ["Group Policy (user logon)", "4 ± 0.8 s (n=3)", "12 ± 2.4 s (n=3)"]
    assert means[4] == ["Group Policy, other (outside the extensions)", "1,380 ms", "4,140 ms"]
    assert means[6][2] == means[7][2] == "not in the uploaded logs"
    for row, about in zip(means, [*api["phases"][:4], None, *api["phases"][4:]], strict=True):
        for text, scenario in zip(row[1:], (off, on), strict=True):
            value = (
                scenario["group_policy_other_ms"]
                if about is None
                else _phase(scenario, about["phase"])["mean_ms"]
            )
            if value is None:
                assert text == "not in the uploaded logs", row[0]
                continue
            number, unit = (
                text.split(" (")[0].split(" ± ")[0].split(" ")[0],
                text.split(" (")[0].split(" ")[-1],
            )
            assert_printed(number, value, per_printed("ms", unit), f"{row[0]} {scenario['label']}")

    compared = page.locator("#logon-phases table").nth(1).evaluate(READ_TABLE)
    assert len(compared) == len(api["comparisons"]) == 7
    for row, c in zip(compared, api["comparisons"], strict=True):
        assert row[0] == c["label"] and row[2] == f"{c['n'][0]} / {c['n'][1]}"
        if c["factor"] is None:
            assert row[3:5] == ["—", "—"] and row[5] == "not in the uploaded logs of redirection=on"
            continue
        assert_printed(row[3].rstrip(TIMES), c["factor"], 1.0, row[0])
        low, high = (part.strip().rstrip(TIMES) for part in row[4].split("\u2013"))
        assert_printed(low, c["interval"][0], 1.0, row[0])
        assert_printed(high, c["interval"][1], 1.0, row[0])
        assert row[5] == c["verdict"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize("width", WIDTHS)
def test_the_compare_page_draws_and_lists_the_apis_logon_phases(page, phases_site, width):
    site = phases_site
    page.set_viewport_size({"width": width, "height": 900})
    open_page(page, site, "/campaigns/demo/compare/")
    api = site.client.get("/api/v1/campaigns/demo/logon-phases").json()
    _check_section(page, api, width)
    off, on = api["scenarios"]
    assert api["baseline"]["scenario"] == off["scenario"]
    # Against the other baseline: the factors are 1/3, asked again from the API, kept in the address.
    page.select_option("#f-phases-baseline", str(on["scenario"]))
    page.wait_for_function(f"() => location.search.includes('phases_baseline={on['scenario']}')")
    page.wait_for_selector("#logon-phases[data-state=ready] #f-phases-baseline")
    factors = page.locator("#logon-phases table").nth(1).evaluate(READ_TABLE)
    assert factors[0][:4] == ["User profile load", "redirection=off", "3 / 3", "0.333" + TIMES]


@pytest.mark.parametrize("width", WIDTHS)
def test_a_share_report_draws_the_logon_phases_with_its_frozen_baseline(page, phases_site, width):
    site = phases_site
    on = Scenario.objects.get(campaign=site.campaign, redirection="on", extras__study="logon-phases")
    filters = report.compare_filters({"baseline": on.pk, "phases_baseline": str(on.pk)})
    assert filters["phases_baseline"] == on.pk
    _, token = ShareLink.issue(site.campaign, "compare", filters)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{site.url}/s/{token}/")
    page.wait_for_selector("body[data-state=ready]")
    api = site.client.get(f"/api/v1/campaigns/demo/logon-phases?baseline={on.pk}").json()
    section = page.locator("#logon-phases")
    assert section.get_attribute("data-api") == f"logon-phases?baseline={on.pk}"
    assert page.locator("#f-phases-baseline").count() == 0  # frozen: named, not picked
    assert "Phases compared with redirection=on" in section.inner_text()
    # The same figures, compared the other way round.
    off = api["scenarios"][0]
    assert api["comparisons"][0]["scenario"] == off["scenario"]
    assert api["comparisons"][0]["factor"] == pytest.approx(1 / 3)
    _check_section(page, api, width)


def test_a_compare_share_link_refuses_a_phases_baseline_that_is_no_scenario_id():
    with pytest.raises(ValueError, match="phases_baseline must be a scenario id"):
        report.compare_filters({"baseline": 1, "phases_baseline": "off"})
    assert "phases_baseline" not in report.compare_filters({"baseline": 1, "phases_baseline": ""})

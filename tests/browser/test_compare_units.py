"""Issue 20 item 2: the compare page prints each figure in the unit it names (the seed of a display oracle).

Every row of the "Mean, spread and significance" table is read back and
checked against the API: the Unit cell names a unit the API's unit converts
to, and Mean, Stdev, Min and Max equal the API's numbers converted into that
unit, to the digits printed. The demo's Adobe Reader XI launch on a 2003 SMB 1
server at 50 % CPU (mean 85,488 ms) is printed in seconds -- all four figures.
"""

from __future__ import annotations

import pytest

from tests.browser.figures import FIGURES, assert_printed, detail_cells, per_printed
from tests.browser.test_pages import open_page
from webapp.core.models import Scenario

pytestmark = pytest.mark.browser


def test_every_figure_of_a_row_is_printed_in_the_unit_its_row_names(page, site):
    baseline = Scenario.objects.get(campaign=site.campaign, redirection="none", extras__study="app-launch")
    open_page(page, site, f"/campaigns/demo/compare/?baseline={baseline.pk}&show=headline")
    api = site.client.get(f"/api/v1/campaigns/demo/compare?baseline={baseline.pk}").json()
    # The rows the page lists, in the API's order: headline metrics of the baseline and of compared scenarios.
    compared = {r["scenario"] for r in api["results"] if not r["is_baseline"] and r["factor"] is not None}
    expected = [
        r
        for r in api["results"]
        if r["group"] == "headline" and (r["is_baseline"] or r["scenario"] in compared)
    ]
    cells = detail_cells(page)
    assert len(cells) == len(expected) == 35  # 5 applications x (the baseline + 6 redirected scenarios)
    for row, result in zip(cells, expected, strict=True):
        where = f"{result['label']} / {result['metric']}"
        assert row["Metric"] == result["metric"] and row["n"] == str(result["n"]), where
        per = per_printed(result["unit"], row["Unit"])
        for figure in FIGURES:
            assert_printed(row[figure.capitalize()], result[figure], per, f"{where} {figure}")

    adobe = next(
        r
        for r in expected
        if r["metric"] == "Adobe Reader XI launch"
        and r["dims"].get("server_os") == "2003"
        and r["dims"].get("server_cpu_load") == "50"
    )
    assert adobe["unit"] == "ms" and adobe["mean"] == pytest.approx(85_488.0)
    assert adobe["stdev"] == pytest.approx(4_991.435, abs=1e-3)
    row = cells[expected.index(adobe)]
    assert [row["Mean"], row["Stdev"], row["Min"], row["Max"], row["Unit"]] == [
        "85.5",
        "4.99",
        "80.2",
        "90.6",
        "s",
    ]
    # The factor table's hover text says the same, in the same unit.
    pivot = page.locator("#factor-table tbody tr", has_text="Adobe Reader XI launch")
    titles = pivot.locator("td[title]").evaluate_all("cells => cells.map(c => c.title)")
    assert "85.5 ± 4.99 s (n=5), p < 0.001" in titles


def test_single_runs_say_too_few_runs_on_the_compare_and_capacity_pages(page, site):
    # Issue 20 item 9: one DiskSpd report per dialect and power profile, one FSCT run per scenario.
    sweeps = [
        s for s in Scenario.objects.filter(campaign=site.campaign) if s.dims.get("study") == "smb-block-size"
    ]
    open_page(page, site, f"/campaigns/demo/compare/?baseline={sweeps[0].pk}&show=headline")
    rows = [r for r in detail_cells(page) if r["Scenario"] != "baseline"]
    assert rows and {r["p (Welch)"] for r in rows} == {"too few runs"}
    assert {r["p < 0.05"] for r in rows} == {""}
    open_page(page, site, "/campaigns/demo/capacity/")
    page.wait_for_selector("#comparisons-table td")
    api = site.client.get("/api/v1/campaigns/demo/capacity").json()
    assert {c["verdict"] for c in api["comparisons"]} == {"too few runs"}
    verdicts = page.locator("#comparisons-table tbody tr").evaluate_all(
        "rows => rows.map(r => r.cells[4].textContent)"
    )
    assert verdicts == ["too few runs"] * len(api["comparisons"])

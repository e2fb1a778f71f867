"""Narrow charts list their legend under the canvas in full (legend.js); wide ones keep Chart.js's legend.

The block-size page's legend names, such as
"2008 R2 · SMB 2.1 · high performance power · read", were cut off at the
canvas edge on a phone.
"""

from __future__ import annotations

import struct

import pytest

pytestmark = pytest.mark.browser

THROUGHPUT = "#slot-mbps"
# Each chart's dataset labels and visibility, and its HTML legend's entries (if any).
LEGENDS = """selector => {
    const canvas = document.querySelector(selector + " canvas");
    const chart = Chart.getChart(canvas);
    const list = document.querySelector(selector + " ul.chart-legend");
    return {
        labels: chart.data.datasets.map(d => d.label),
        visible: chart.data.datasets.map((d, i) => chart.isDatasetVisible(i)),
        canvasLegend: chart.options.plugins.legend.display,
        entries: list ? Array.from(list.querySelectorAll("button")).map(b => b.textContent) : null,
        pressed: list ? Array.from(list.querySelectorAll("button")).map(b => b.getAttribute("aria-pressed")) : null,
        clipped: list ? Array.from(list.querySelectorAll("button")).filter(b => b.scrollWidth > b.clientWidth).length : null,
        canvasHeight: canvas.height,
    };
}"""


def open_block_size(page, site, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{site.url}/campaigns/{site.campaign.slug}/block-size/")
    page.wait_for_selector("body[data-state=ready]")


def png_height(data: bytes) -> int:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int(struct.unpack(">I", data[20:24])[0])


def test_on_a_phone_the_legend_lists_every_name_whole_and_toggles_its_line(page, site):
    open_block_size(page, site, 390)
    legend = page.evaluate(LEGENDS, THROUGHPUT)
    # The demo's block-size lines (scenario x direction): more than the palette's 8 colours.
    lines = len(legend["labels"])
    assert lines == 14
    assert legend["canvasLegend"] is False
    assert legend["entries"] == legend["labels"]
    assert legend["clipped"] == 0
    assert all(" · " in name for name in legend["entries"])

    page.locator(f"{THROUGHPUT} ul.chart-legend button").nth(1).click()
    after = page.evaluate(LEGENDS, THROUGHPUT)
    assert after["visible"] == [i != 1 for i in range(lines)]
    assert after["pressed"] == ["false" if i == 1 else "true" for i in range(lines)]

    # The PNG keeps the legend: the visible entries are drawn under the chart.
    with page.expect_download() as info:
        page.locator(f"{THROUGHPUT} button", has_text="PNG").click()
    height = png_height(info.value.path().read_bytes())
    ratio = page.evaluate("devicePixelRatio")
    assert height >= after["canvasHeight"] + (lines - 1) * round(18 * ratio)

    # Another direction redraws the chart: one list, for the new chart only.
    direction = page.locator("#f-direction option").nth(1).get_attribute("value")
    expected = [name for name in legend["labels"] if name.endswith(f" · {direction}")]
    assert expected
    page.select_option("#f-direction", index=1)
    page.wait_for_function(
        f"Chart.getChart(document.querySelector('{THROUGHPUT} canvas')).data.datasets.length === {len(expected)}"
    )
    assert page.locator(f"{THROUGHPUT} ul.chart-legend").count() == 1
    assert page.evaluate(LEGENDS, THROUGHPUT)["entries"] == page.evaluate(LEGENDS, THROUGHPUT)["labels"]
    assert site.console == [], site.console


def test_on_a_desktop_the_chart_keeps_its_own_legend(page, site):
    open_block_size(page, site, 1440)
    legend = page.evaluate(LEGENDS, THROUGHPUT)
    assert legend["canvasLegend"] is True and legend["entries"] is None
    assert page.locator("ul.chart-legend").count() == 0

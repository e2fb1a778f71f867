"""The trace explorer charts counters in readable units and marks an FSCT run's load steps."""

from __future__ import annotations

import csv
import io

import pytest

pytestmark = pytest.mark.browser

CHART_OF = """canvas => {
    const chart = Chart.getChart(canvas);
    const bands = Object.values(chart.options.plugins.annotation.annotations || {});
    return {
        title: chart.options.scales.y.title.text,
        max: chart.scales.y.max,
        ticks: chart.scales.y.ticks.map(t => t.label),
        bands: bands.map(b => b.label.content),
    };
}"""


def test_network_bytes_read_in_mb_per_s_and_load_steps_are_marked(page, site):
    page.goto(site.url + "/campaigns/demo/traces/")
    page.wait_for_selector("body[data-state=ready]")
    network = page.locator("#slot-traces .chart-card", has_text="Bytes Total/sec")
    if not network.count():  # not ticked by default: tick it
        page.locator("#series-list label", has_text="Bytes Total/sec").locator("input").check()
        page.wait_for_selector("body[data-state=ready]")
    chart = network.locator("canvas").evaluate(CHART_OF)
    assert chart["title"] == "Bytes Total/sec (MB/s)"
    # ~9,800 bytes/s per user at up to 1,000 users: about 10 MB/s, not 10,000,000.
    assert 5 < chart["max"] < 50, chart
    assert all(len(label) < 8 for label in chart["ticks"]), chart["ticks"]
    assert chart["bands"] == [f"{users:,} users" for users in range(100, 1001, 100)]

    cpu = page.locator("#slot-traces .chart-card", has_text="% Processor Time").first.locator("canvas")
    assert cpu.evaluate(CHART_OF)["title"] == "% Processor Time (%)"
    # The CSV keeps the API's own numbers: bytes per second.
    with page.expect_download() as info:
        network.locator("button[data-action=csv]").click()
    rows = list(csv.DictReader(io.StringIO(info.value.path().read_text(encoding="utf-8"))))
    assert max(float(r["avg"]) for r in rows if r["avg"]) > 5_000_000
    assert site.console == [], site.console

"""The trace explorer charts counters in readable units and marks an FSCT run's load steps."""

from __future__ import annotations

import csv
import io

import pytest

from tests.ingest import ingest_path
from tests.paths import FIXTURES
from webapp.core.models import Run

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


WIDE_LOG = FIXTURES / "perfmon_csv" / "iversonlu_SystemPerformance_DCS_ChinaTZ_2633cols.csv"


def test_a_run_with_thousands_of_counters_gets_a_filter_and_a_list_that_scrolls(page, site):
    upload = ingest_path(site.campaign, WIDE_LOG, host="WIDE01", role="server", run="wide", scenario={})
    assert upload.status == "stored", upload.error
    run = Run.objects.get(campaign=site.campaign, name="wide")
    # The log's counter columns that hold a sample (one of its 2,632 is blank throughout).
    header, *rows = csv.reader(io.StringIO(WIDE_LOG.read_text(encoding="utf-8-sig")))
    counters = sum(1 for i in range(1, len(header)) if any(row[i].strip() for row in rows if len(row) > i))
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{site.url}/campaigns/{site.campaign.slug}/traces/?run={run.pk}")
    page.wait_for_selector("body[data-state=ready]")
    labels = page.locator("#series-list label.check")
    assert labels.count() == counters == 2631
    assert page.locator("#series-count").inner_text() == f"{counters} of {counters} shown · 4 ticked"
    box = page.locator("#series-list").bounding_box()
    assert box is not None and box["height"] < 400  # the list scrolls inside its card
    assert page.evaluate("document.documentElement.scrollWidth") <= 1440

    page.fill("#series-filter", "processor _total")
    shown = [text.lower() for text in page.locator("#series-list label.check:visible").all_inner_texts()]
    assert shown and all("processor" in text and "_total" in text for text in shown)
    assert page.locator("#series-count").inner_text() == f"{len(shown)} of {counters} shown · 4 ticked"
    # Hidden by the filter is not unticked: the charts stay.
    assert page.locator("#slot-traces .chart-card").count() == 4
    page.fill("#series-filter", "")
    assert labels.locator("visible=true").count() == counters
    assert site.console == [], site.console

"""In Chromium: a shared traces link opens without a session and draws the frozen series read-only."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings

from tests.browser.conftest import COLOURED_PIXELS
from tests.browser.test_pages import download_csv, number
from webapp.dashboard.views.traces import traced_runs
from webapp.sharing.models import ShareLink
from webapp.sharing.traces import traces_filters
from webapp.timeseries.models import CounterSeries

pytestmark = pytest.mark.browser


def test_a_shared_trace_draws_its_frozen_series_for_an_anonymous_reader(page, site):
    run = traced_runs(site.campaign)[0]
    ids = list(CounterSeries.objects.filter(host__runs=run).order_by("pk").values_list("pk", flat=True))[:2]
    filters = traces_filters(site.campaign, {"run": run.pk, "series": ",".join(map(str, ids))})
    _, token = ShareLink.issue(site.campaign, "traces", filters)
    page.context.clear_cookies()
    shots = Path(settings.VAR_DIR) / "screenshots" / "share-traces"
    shots.mkdir(parents=True, exist_ok=True)
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{site.url}/s/{token}/")
        page.wait_for_selector("body[data-traces='2']")
        canvases = page.locator("#shared-traces canvas")
        assert canvases.evaluate_all("list => list.map(c => c.dataset.series)") == [str(i) for i in ids]
        assert all(c.evaluate(COLOURED_PIXELS) > 300 for c in canvases.all())
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(shots / f"traces-{width}.png"), full_page=True)
    assert page.locator("#trace-form").count() == 0  # read-only: no controls

    # Each chart has CSV and PNG buttons like the dashboard's: the CSV holds the frozen buckets, unscaled.
    embedded = page.evaluate("JSON.parse(document.getElementById('traces-data').textContent)")
    first = embedded["series"][0]
    assert first["id"] == ids[0] and len(first["points"]) > 10
    rows = download_csv(page, page.locator("#shared-traces .chart-card").first)
    assert [[row["time"], number(row["avg"]), number(row["min"]), number(row["max"])] for row in rows] == [
        list(point) for point in first["points"]
    ]
    with page.expect_download() as info:
        page.locator("#shared-traces .chart-card").first.locator("button[data-action=png]").click()
    assert info.value.path().read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert site.console == [], site.console

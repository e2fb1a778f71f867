"""In Chromium: the capacity page and the share report size by the resource that binds first (issue 20 item 1).

Screenshots at 1440 and 390 px land in var/screenshots/binding/ for a look by eye.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings

from tests.browser.test_pages import open_page
from webapp.sharing.models import ShareLink
from webapp.sharing.report import capacity_filters

pytestmark = pytest.mark.browser

SIZING = {"users": 3000, "target": 60.0, "redundancy": 1}
BAR_LABELS = """() => {
    const chart = Chart.getChart(document.querySelector("#saturation-chart"));
    return chart.data.labels.map(l => [].concat(l).join(" · "));
}"""


def shots() -> Path:
    folder = Path(settings.VAR_DIR) / "screenshots" / "binding"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_the_capacity_page_says_the_disk_queue_decides_hdd_at_both_widths(page, site):
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        open_page(page, site, "/campaigns/demo/capacity/?users=3000&target=60&redundancy=1")
        page.wait_for_selector("#sizing-table td.servers")
        table = page.locator("#saturation-table").inner_text()
        assert "disk queue, before CPU (912)" in table
        assert "disk queue limit" in page.locator("#sizing-table").inner_text()
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(shots() / f"capacity-{width}.png"), full_page=True)
        page.locator("#slot-saturation").screenshot(path=str(shots() / f"capacity-{width}-bars.png"))
        page.locator("#sizing").screenshot(path=str(shots() / f"capacity-{width}-sizing.png"))
    assert site.console == [], site.console


def test_the_share_report_shows_the_binding_figure_and_names_the_limit(page, site):
    filters = capacity_filters(SIZING)
    _, token = ShareLink.issue(site.campaign, "capacity", filters)
    page.context.clear_cookies()
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{site.url}/s/{token}/")
        page.wait_for_selector("#saturation-chart")
        # The bars' figures: HDD AV off is 522 (disk queue), not CPU's 912.
        assert "522" in page.get_attribute("body", "data-users").split(",")
        assert any(label.endswith(" · disk queue first") for label in page.evaluate(BAR_LABELS))
        assert "7 servers (N+1)" in page.locator("#answer").inner_text()
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(shots() / f"share-{width}.png"), full_page=True)
        page.locator("#saturation-chart").screenshot(path=str(shots() / f"share-{width}-bars.png"))
        page.locator("#answer").screenshot(path=str(shots() / f"share-{width}-answer.png"))
        page.locator("#saturation-table").screenshot(path=str(shots() / f"share-{width}-table.png"))
    assert site.console == [], site.console

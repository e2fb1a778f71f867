"""Issue 23: the series history page and its share report in Chromium, at a desktop's and a phone's width.

The demo campaign and a later one (``add_demo_series``): the chart draws a line per scenario with whiskers and
a ✎ over the later campaign (its note), lists the notes, and the tables fit their cards. Screenshots are kept
under ``$HEADROOM_VAR_DIR/screenshots/history/``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings

from tests.browser.conftest import COLOURED_PIXELS
from tests.webapp.dashboard.demo import add_demo_series
from webapp.sharing.history import history_filters
from webapp.sharing.models import ShareLink

pytestmark = pytest.mark.browser

# Elements whose right edge passes their card's (clipped text, a chart wider than its box).
OVERFLOWING = """() => Array.from(document.querySelectorAll("main .card > *:not(.table-wrap), main .card canvas"))
    .filter(el => el.getClientRects().length)
    .filter(el => el.getBoundingClientRect().right > el.closest(".card").getBoundingClientRect().right + 1)
    .map(el => el.tagName + (el.id ? "#" + el.id : ""))"""


@pytest.mark.parametrize("width", [1440, 390])
def test_the_history_and_its_share_draw_the_series_at_both_widths(page, site, width):
    later = add_demo_series(site.campaign)
    token = ShareLink.issue(later, "history", history_filters(later, {}, baseline=""))[1]
    shots = Path(settings.VAR_DIR) / "screenshots" / "history"
    shots.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": width, "height": 900})

    page.goto(f"{site.url}/series/demo-series/history/")
    page.wait_for_function("() => document.body.dataset.state === 'ready'")
    canvas = page.locator("#slot-history canvas")
    assert canvas.evaluate(COLOURED_PIXELS) > 500
    notes = page.locator("#history-notes li").all_inner_texts()
    assert any("2015-05 — campaign: AV engine 1.2.3 installed on FS-NEXT" in n for n in notes), notes
    assert page.locator("#changes-table tbody tr").count() >= 3
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert page.evaluate(OVERFLOWING) == []
    page.screenshot(path=str(shots / f"history-{width}.png"), full_page=True)
    with page.expect_download() as csv:
        page.locator("#slot-history button[data-action=csv]").click()
    assert csv.value.suggested_filename == "series-history.csv"
    with page.expect_download() as png:
        page.locator("#slot-history button[data-action=png]").click()
    assert png.value.suggested_filename == "series-history.png"

    page.context.clear_cookies()
    page.goto(f"{site.url}/s/{token}/")
    assert page.locator("#history-chart").evaluate(COLOURED_PIXELS) > 500
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert page.evaluate(OVERFLOWING) == []
    page.screenshot(path=str(shots / f"share-history-{width}.png"), full_page=True)
    assert site.console == [], site.console

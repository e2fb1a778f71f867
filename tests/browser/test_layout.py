"""No page scrolls sideways at a phone's or a desktop's width: wide tables scroll inside their card.

Every page is loaded in Chromium at 390 and 1440 px; the document may be no
wider than the window, and the navigation's background covers all of its
links. Screenshots of every page at both widths are kept under
``$HEADROOM_VAR_DIR/screenshots/<width>/`` as test artefacts.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings

from tests.browser.every_page import every_page, open_every_page

pytestmark = pytest.mark.browser

# The navigation's links all lie inside its dark background (it wraps, never overflows).
NAV_COVERS_ITS_LINKS = """() => {
    const nav = document.querySelector("nav.nav").getBoundingClientRect();
    return Array.from(document.querySelectorAll("nav.nav a, nav.nav button, nav.nav span"))
        .filter(node => node.getClientRects().length)
        .map(node => [node.textContent.trim(), node.getBoundingClientRect()])
        .filter(([, box]) => box.right > nav.right + 0.5 || box.bottom > nav.bottom + 0.5 || box.left < nav.left - 0.5)
        .map(([text]) => text);
}"""


@pytest.mark.parametrize("width", [390, 1440])
def test_no_page_is_wider_than_the_window(page, site, width):
    page.set_viewport_size({"width": width, "height": 900})
    shots = Path(settings.VAR_DIR) / "screenshots" / str(width)
    shots.mkdir(parents=True, exist_ok=True)
    too_wide: dict[str, int] = {}
    uncovered: dict[str, list[str]] = {}
    for item in open_every_page(page, site, every_page(site)):
        page.screenshot(path=str(shots / f"{item.name}.png"), full_page=True)
        scroll = page.evaluate("document.documentElement.scrollWidth")
        inner = page.evaluate("innerWidth")
        if scroll > inner:
            too_wide[item.name] = scroll
        if outside := page.evaluate(NAV_COVERS_ITS_LINKS):
            uncovered[item.name] = outside
    assert too_wide == {}, f"pages wider than the {width} px window: {too_wide}"
    assert uncovered == {}, f"navigation links outside the navigation's background: {uncovered}"
    assert site.console == [], site.console


# How many lines each navigation row's items take: their vertical centres (items are
# centred on a line), counting a new line where the next centre is over 10 px lower.
NAV_ROW_LINES = """() => Array.from(document.querySelectorAll("nav.nav .nav-inner")).map(row =>
    Array.from(row.querySelectorAll("a, button, .nav-campaign"))
        .map(node => node.getBoundingClientRect())
        .map(box => (box.top + box.bottom) / 2)
        .sort((a, b) => a - b)
        .filter((centre, i, all) => i === 0 || centre - all[i - 1] > 10).length)"""


def test_at_a_desktop_width_each_navigation_row_is_one_line(page, site):
    # The account row, then the campaign's row with all ten views an editor has.
    from django.test import Client

    from tests.factories import make_user

    editor = Client()
    editor.force_login(make_user(site.campaign.project, role="editor"))
    page.context.clear_cookies()
    page.context.add_cookies(
        [{"name": "sessionid", "value": editor.cookies["sessionid"].value, "url": site.url}]
    )
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{site.url}/campaigns/{site.campaign.slug}/capacity/")
    assert page.locator("nav.nav .nav-views a").count() == 10
    assert page.evaluate(NAV_ROW_LINES) == [1, 1]
    page.set_viewport_size({"width": 390, "height": 900})
    assert page.evaluate(NAV_ROW_LINES)[1] > 1  # a phone wraps the campaign's row (inside the bar, as above)

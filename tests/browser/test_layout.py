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

"""axe-core finds no serious or critical accessibility violation on any page; the keyboard reaches everything.

axe-core is vendored for these tests only (``tests/browser/vendor/``, see its
README); it is evaluated in each page through the DevTools protocol, which
the pages' Content-Security-Policy does not govern, so the pages keep
their CSP while they are checked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser.every_page import every_page, open_every_page

pytestmark = pytest.mark.browser

AXE_VERSION = "4.14.1"
AXE = Path(__file__).parent / "vendor" / "axe.min.js"
RUN_AXE = """async () => {
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations
        .filter(v => v.impact === "serious" || v.impact === "critical")
        .map(v => ({ id: v.id, impact: v.impact, help: v.help,
                     nodes: v.nodes.slice(0, 3).map(n => n.target.join(" ")) }));
}"""


def inject_axe(page) -> None:
    page.evaluate(AXE.read_text(encoding="utf-8") + "\n;undefined")
    assert page.evaluate("axe.version") == AXE_VERSION


@pytest.mark.parametrize("width", [390, 1440])
def test_no_page_has_serious_or_critical_axe_violations(page, site, width):
    page.set_viewport_size({"width": width, "height": 900})
    found = {}
    for item in open_every_page(page, site, every_page(site)):
        inject_axe(page)
        if violations := page.evaluate(RUN_AXE):
            found[item.name] = violations
    assert found == {}, found
    assert site.console == [], site.console


def test_the_keyboard_skips_the_navigation_and_sorts_a_table(page, site):
    page.goto(site.url + "/campaigns/demo/uploads/")
    page.keyboard.press("Tab")
    skip = page.locator(".skip-link")
    assert page.evaluate("document.activeElement.className") == "skip-link"
    assert skip.is_visible() and skip.bounding_box()["y"] >= 0  # shown while focused
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"

    # Tab on from the page's start reaches the first sortable header, drawn with a focus ring.
    header = page.locator("table.uploads-table th button.sort-header").first
    for _ in range(40):
        page.keyboard.press("Tab")
        if header.evaluate("b => b === document.activeElement"):
            break
    else:
        pytest.fail("the keyboard never reached the first sortable header")
    ring = header.evaluate("b => getComputedStyle(b).outlineStyle + ' ' + getComputedStyle(b).outlineWidth")
    assert ring == "solid 2px", ring
    page.keyboard.press("Enter")
    assert page.locator("table.uploads-table th").first.get_attribute("aria-sort") == "ascending"
    ids = [int(t) for t in page.locator("table.uploads-table tbody td.num:first-child").all_inner_texts()]
    assert ids == sorted(ids)

    # The table's scroll area is a named, focusable region.
    wrap = page.locator(".table-wrap").first
    assert wrap.get_attribute("tabindex") == "0" and wrap.get_attribute("role") == "region"
    assert wrap.get_attribute("aria-label") == "Uploads"


def test_chart_buttons_say_which_chart_they_save(page, site):
    page.goto(site.url + "/campaigns/demo/capacity/")
    page.wait_for_selector("body[data-state=ready]")
    names = page.locator(".chart-card button[data-action=csv]").evaluate_all(
        "buttons => buttons.map(b => b.getAttribute('aria-label'))"
    )
    assert "Download CSV of Users before saturation" in names
    assert all(name and name.startswith("Download CSV of ") for name in names), names
    # A table built by the page's script is named after its card.
    labels = page.locator("#slot-overview ~ * .table-wrap, .card .table-wrap").evaluate_all(
        "wraps => wraps.map(w => w.getAttribute('aria-label'))"
    )
    assert labels and all(label and not label.startswith("Table of") for label in labels), labels

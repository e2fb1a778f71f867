"""In Chromium: figures printed on bars never overlap, on a phone or a desktop (issue 20: no clipped labels).

The capacity page's "users before saturation" bars carry their figures ("833", "860"); at 390 px the
demo's neighbouring bars are narrower than their figures. The bar-label plugin (pages.js) keeps the
boxes it drew on ``chart.barLabelBoxes``: none may intersect another, and on a desktop every figure is drawn.
"""

from __future__ import annotations

import pytest

from tests.browser.test_pages import open_page

pytestmark = pytest.mark.browser

LABELS = """() => Object.values(Chart.instances).filter(c => c.data.datasets.some(d => d.barText)).map(c => ({
    canvas: c.canvas.closest("[id]") ? c.canvas.closest("[id]").id : "",
    texts: c.data.datasets.flatMap((d, i) => c.getDatasetMeta(i).hidden ? [] :
        (d.barText || []).filter((t, j) => t && d.data[j] !== null && d.data[j] !== undefined)),
    boxes: c.barLabelBoxes,
}))"""


def intersecting(boxes: list[dict]) -> list[tuple[str, str]]:
    return [
        (a["text"], b["text"])
        for i, a in enumerate(boxes)
        for b in boxes[i + 1 :]
        if a["left"] < b["right"]
        and b["left"] < a["right"]
        and a["top"] < b["bottom"]
        and b["top"] < a["bottom"]
    ]


@pytest.mark.parametrize("address", ["", "?colour=&groups=server_os,smb_dialect,disk_type,av"])
def test_bar_figures_never_overlap_at_390_or_1440_px(page, site, address):
    open_page(page, site, "/campaigns/demo/capacity/" + address)
    page.wait_for_function("() => Chart.getChart(document.querySelector('#slot-saturation canvas'))")
    for width in (390, 1440):
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_timeout(400)  # Chart.js redraws on resize
        charts = page.evaluate(LABELS)
        assert any(c["canvas"] == "slot-saturation" for c in charts), charts
        for chart in charts:
            assert chart["boxes"] is not None, chart
            assert intersecting(chart["boxes"]) == [], (width, chart["canvas"])
            if width == 1440:
                assert sorted(b["text"] for b in chart["boxes"]) == sorted(chart["texts"]), chart["canvas"]
    assert site.console == [], site.console

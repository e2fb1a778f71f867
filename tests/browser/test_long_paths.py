"""Real robocopy logs carry long paths: the copies page keeps its figures in view and its axis readable."""

from __future__ import annotations

import pytest

from tests.ingest import ingest_path
from tests.paths import FIXTURES

pytestmark = pytest.mark.browser

# A French robocopy log whose source is a 150-character path (cp850).
LOG = FIXTURES / "robocopy" / "mohamed_robocopy_frFR_cp850.log"
SOURCE = "C:\\newXampp\\htdocs\\" + "\\".join(["Maquettes_de_gestion_acad_mique_lmd"] * 3) + "\\"

AXIS = """canvas => {
    const chart = Chart.getChart(canvas);
    const axis = chart.scales.y;
    return { ticks: axis.ticks.map(t => t.label), left: chart.chartArea.left, full: chart.data.labels };
}"""


def test_a_long_source_path_wraps_in_the_table_and_is_shortened_on_the_axis(page, site):
    assert SOURCE.encode("cp850") in LOG.read_bytes()
    upload = ingest_path(
        site.campaign, LOG, host="COPY01", role="server", run="copy-fr", scenario={}, timezone="Europe/Paris"
    )
    assert upload.status == "stored", upload.error
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{site.url}/campaigns/{site.campaign.slug}/copies/")
    page.wait_for_selector("body[data-state=ready]")

    # Every table fits its card: the path wraps instead of pushing the figures sideways.
    overflowing = page.evaluate(
        "Array.from(document.querySelectorAll('.table-wrap')).filter(w => w.scrollWidth > w.clientWidth + 1).length"
    )
    assert overflowing == 0
    cell = page.locator("#times-table td.path", has_text="Maquettes").first
    assert cell.inner_text().replace("\n", "") == SOURCE

    axis = page.locator("#slot-times canvas").evaluate(AXIS)
    ours = axis["full"].index(next(label for label in axis["full"] if label[0] == SOURCE))
    shown = axis["ticks"][ours]
    assert shown[0] == SOURCE[:11] + "…" + SOURCE[-32:]
    assert all(len(line) <= 44 for tick in axis["ticks"] for line in tick)
    assert axis["left"] < 1440 / 2  # the bars keep most of the width

    # A phone leaves the axis less room: shorter labels, still start and end.
    page.set_viewport_size({"width": 390, "height": 900})
    page.reload()
    page.wait_for_selector("body[data-state=ready]")
    phone = page.locator("#slot-times canvas").evaluate(AXIS)
    assert phone["ticks"][ours][0] == SOURCE[:6] + "…" + SOURCE[-15:]
    assert all(len(line) <= 22 for tick in phone["ticks"] for line in tick)
    assert site.console == [], site.console

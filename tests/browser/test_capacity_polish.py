"""In Chromium: the capacity page refuses bad address values visibly, keeps grouping and colours in the address,
marks merged bars, colours each scenario alike on every chart and captions its PNGs."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from django.conf import settings

from tests.browser.test_pages import download_csv, open_page

pytestmark = pytest.mark.browser

CHART_COLOURS = """() => {
    const chart = id => Chart.getChart(document.querySelector(id + " canvas"));
    const overview = chart("#slot-overview");
    const servers = chart("#slot-servers");
    return {
        lines: Object.fromEntries(overview.data.datasets.map(d => [d.label, d.borderColor])),
        servers: Object.fromEntries(servers.data.labels.map((l, i) => [l, servers.data.datasets[0].backgroundColor[i]])),
    };
}"""


def shoot(page, name: str) -> None:
    shots = Path(settings.VAR_DIR) / "screenshots" / "capacity"
    shots.mkdir(parents=True, exist_ok=True)
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_timeout(300)
        page.screenshot(path=str(shots / f"{name}-{width}.png"), full_page=True)
        page.screenshot(path=str(shots / f"{name}-{width}-top.png"))
        page.locator("#slot-saturation").screenshot(path=str(shots / f"{name}-{width}-bars.png"))


def test_bad_address_values_show_a_message_and_the_page_draws_the_defaults(page, site):
    open_page(page, site, "/campaigns/demo/capacity/?trim=75&stat=bogus&threshold=abc&counter=nonsense")
    message = page.locator("#bad-params")
    assert message.is_visible()
    text = message.inner_text()
    for part in (
        "trim is a percentage",
        "'75'",
        "not 'bogus'",
        "not 'abc'",
        "'nonsense'",
        "shows the defaults",
    ):
        assert part in text, part
    assert page.locator("#f-threshold").input_value() == "80"
    assert page.locator("#threshold-unit").inner_text() == "%"
    assert page.locator("#lead-threshold").inner_text() == "80 %"
    api = site.client.get("/api/v1/campaigns/demo/capacity").json()
    shown = page.locator("#saturation-table td.saturation").all_inner_texts()
    assert sorted(shown) == sorted(s["saturation_text"] for s in api["scenarios"])
    shoot(page, "bad-values")
    assert site.console == [], site.console


def test_grouping_and_colour_survive_a_reload_and_merged_bars_say_so(page, site):
    open_page(page, site, "/campaigns/demo/capacity/")
    options = page.locator("#f-colour option").evaluate_all("list => list.map(o => o.value)")
    dims = [o for o in options if o]
    assert len(dims) >= 2, dims
    # Colour by the first dimension, group by nothing: every scenario of one colour value shares a bar.
    page.select_option("#f-colour", dims[0])
    while page.locator("#f-groups input:checked").count():
        page.locator("#f-groups input:checked").first.uncheck()
    page.wait_for_function("() => new URLSearchParams(location.search).get('groups') === ''")
    assert f"colour={dims[0]}" in page.url
    page.reload()
    page.wait_for_selector("body[data-state=ready]")
    assert page.locator("#f-colour").input_value() == dims[0]
    assert page.locator("#f-groups input:checked").count() == 0

    api = site.client.get("/api/v1/campaigns/demo/capacity").json()
    rows = download_csv(page, page.locator("#slot-saturation .chart-card"))
    by_value: dict[str, list[str]] = {}
    for s in api["scenarios"]:
        by_value.setdefault(s["dims"].get(dims[0], "—"), []).append(s["label"])
    assert len(rows) == len(by_value)
    for row in rows:
        members = by_value[row["colour"].split("=", 1)[1]]
        assert sorted(
            row["merged_scenarios"].split(" | ") if row["merged_scenarios"] else [row["scenario"]]
        ) == (sorted(members))
        # The bar shows the most conservative member, by its binding figure (a limit reached first counts).
        lowest = min(
            (s for s in api["scenarios"] if s["label"] in members),
            key=lambda s: (
                s["binding"]["users"]
                if s["binding"]["by"] == "limit"
                else s["saturation_users"] or min(st["users"] for st in s["steps"])
            ),
        )
        assert row["scenario"] == lowest["label"]
    assert any(row["merged_scenarios"] for row in rows)
    texts = page.evaluate(
        "() => Chart.getChart(document.querySelector('#slot-saturation canvas')).data.datasets"
        ".flatMap(d => d.barText).filter(Boolean)"
    )
    assert any("merged)" in t for t in texts), texts
    assert "merged" in page.locator("#slot-saturation .chart-note").inner_text()
    shoot(page, "merged")
    assert site.console == [], site.console


def test_each_scenario_has_one_colour_on_every_chart_and_pngs_carry_a_caption(page, site):
    open_page(page, site, "/campaigns/demo/capacity/?colour=&groups=server_os,smb_dialect,disk_type,av")
    page.wait_for_selector("#sizing-table td.servers")
    page.wait_for_function("() => Chart.getChart(document.querySelector('#slot-servers canvas'))")
    colours = page.evaluate(CHART_COLOURS)
    assert colours["servers"], colours
    for name, colour in colours["servers"].items():
        assert colours["lines"][name] == colour, name
    assert (
        len(set(colours["lines"].values())) == len(colours["lines"]) == 5
    )  # no colour dimension: one per scenario
    bars = page.evaluate(
        "() => Chart.getChart(document.querySelector('#slot-saturation canvas')).data.datasets[0].borderColor"
    )
    assert sorted(bars) == sorted(colours["lines"].values())  # one bar per scenario, in its colour
    # Small multiples draw their scenario's lines in the same colour.
    first = page.locator("#slot-scenarios .chart-card").first
    title = first.locator("h3").inner_text()
    own = first.locator("canvas").evaluate("c => Chart.getChart(c).data.datasets[0].borderColor")
    assert own == colours["lines"][title]
    y_title = page.evaluate(
        "() => Chart.getChart(document.querySelector('#slot-overview canvas')).options.scales.y.title.text"
    )
    assert y_title == "average of % Processor Time (%)"

    card = page.locator("#slot-saturation .chart-card")
    with page.expect_download() as info:
        card.locator("button[data-action=png]").click()
    data = info.value.path().read_bytes()
    width, height = struct.unpack(">II", data[16:24])
    canvas = card.locator("canvas").evaluate("c => [c.width, c.height]")
    assert width == canvas[0] and height > canvas[1] + 30  # two caption lines above the chart
    shots = Path(settings.VAR_DIR) / "screenshots" / "capacity"
    shots.mkdir(parents=True, exist_ok=True)
    (shots / "users-before-saturation.png").write_bytes(data)
    assert site.console == [], site.console

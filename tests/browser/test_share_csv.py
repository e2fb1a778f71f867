"""In Chromium: every chart of a share report has its data as CSV beside its PNG, and the CSV holds the chart's data."""

from __future__ import annotations

import csv
import io
import json

import pytest

from webapp.core.models import Scenario
from webapp.sharing.models import ShareLink
from webapp.sharing.report import capacity_filters, compare_filters

pytestmark = pytest.mark.browser


def download(page, button_id: str) -> list[dict[str, str]]:
    with page.expect_download() as info:
        page.locator(f"#{button_id}").click()
    return list(csv.DictReader(io.StringIO(info.value.path().read_text(encoding="utf-8"))))


def test_every_shared_chart_offers_csv_beside_png(page, site):
    launches = [
        s for s in Scenario.objects.filter(campaign=site.campaign) if s.dims.get("study") == "app-launch"
    ]
    baseline = next(s for s in launches if s.dims.get("redirection") == "none")
    _, capacity = ShareLink.issue(site.campaign, "capacity", capacity_filters({}))
    _, compare = ShareLink.issue(site.campaign, "compare", {**compare_filters({}), "baseline": baseline.pk})
    page.context.clear_cookies()
    for token in (capacity, compare):
        page.goto(f"{site.url}/s/{token}/")
        page.wait_for_load_state("networkidle")
        pngs = page.locator("button[id$='-png']")
        assert pngs.count() >= 1
        for png in pngs.all():
            name = png.get_attribute("id").removesuffix("-png")
            assert page.locator(f"#{name}-csv").count() == 1, f"{name}: a PNG without a CSV"

    page.goto(f"{site.url}/s/{capacity}/")
    page.wait_for_load_state("networkidle")
    lines = json.loads(page.locator("#capacity-data").text_content())["lines"]
    steps = download(page, "steps-csv")
    assert len(steps) == sum(len(line["points"]) for line in lines) > 0
    assert [float(row["users"]) for row in steps[: len(lines[0]["points"])]] == [
        p[0] for p in lines[0]["points"]
    ]

    page.goto(f"{site.url}/s/{compare}/")
    page.wait_for_load_state("networkidle")
    rows = json.loads(page.locator("#compare-data").text_content())
    factors = download(page, "factor-csv")
    assert [(r["metric"], r["scenario"]) for r in factors] == [(r["metric"], r["scenario"]) for r in rows]
    assert [float(r["factor"]) if r["factor"] else None for r in factors] == [r["factor"] for r in rows]
    assert site.console == [], site.console

"""In Chromium: a run with two servers lists each server's own point on the capacity page on demand
(?hosts=1), and every figure printed there is the API's (the display oracle's check)."""

from __future__ import annotations

import pytest

from tests.browser.test_pages import open_page
from tests.browser.test_per_host_rows import _read_back
from tests.webapp.analysis.studies import add_run, add_server

pytestmark = pytest.mark.browser

CPU = "\\Processor(_Total)\\% Processor Time"


def test_each_server_of_a_run_is_listed_on_its_own_on_demand(page, site):
    # FLEET-A's CPU reaches 80 % at 400 + 10/20 x 100 = 450 users; FLEET-B's never (its 50 % at 500).
    run = add_run(site.campaign, {"disk_type": "fleet"}, {CPU: (20, 40, 60, 70, 90)}, host="FLEET-A", day=900)
    add_server(run, "FLEET-B", {CPU: (10, 20, 30, 40, 50)})
    open_page(page, site, "/campaigns/demo/capacity/")
    assert page.locator("#per-server").is_visible()
    assert not page.locator("#per-server-table").get_by_text("FLEET-B").count()  # not asked for
    open_page(page, site, "/campaigns/demo/capacity/?hosts=1")
    assert page.locator("#f-per-host").is_checked()
    rows = page.locator("#per-server-table tbody tr")
    assert rows.count() == 2
    assert rows.nth(0).inner_text().split("\t")[1:3] == ["FLEET-A", "450 users"]
    assert "FLEET-B" in rows.nth(1).inner_text()
    assert _read_back(page, site) >= 2
    assert site.console == [], site.console

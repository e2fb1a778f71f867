"""In Chromium: compare and copies list each host's own figure under a row several hosts made (?hosts=1),
and every per-host figure printed is the API's (the display oracle's check, tests/browser/figures.py)."""

from __future__ import annotations

import pytest

from tests.browser.figures import Answers, scan
from tests.browser.test_display_oracle import check
from tests.browser.test_pages import open_page
from tests.ingest import ingest_path
from tests.paths import FIXTURES
from webapp.core.models import Scenario

pytestmark = pytest.mark.browser

DISKSPD = FIXTURES / "diskspd_xml" / "vc_Results_DiskSpd_2.0.21a.xml"
MT16 = FIXTURES / "robocopy" / "ripvannwinkler_robocopy_NFL_MT16.log"


def _read_back(page, site) -> int:
    """Checks every marked figure of the page against its API answer; returns how many were per-host ones."""
    labels = [s["label"] for s in site.client.get("/api/v1/campaigns/demo/runs").json()["scenarios"]]
    figures, strays = scan(page, labels)
    # A DiskSpd execution is named by its parameters ("4 KiB · 30 % write · ..."): words, not figures.
    assert [s for s in strays if " · " not in s["text"]] == [], strays
    answers = Answers(site.client, "/api/v1/campaigns/demo")
    for figure in figures:
        check(figure, answers[figure.api])
    return sum("/per_host/" in key for f in figures for key in f.keys)


def test_compare_and_copies_show_each_hosts_figure_on_demand(page, site):
    for host, disk in (("VM01", "SSD"), ("VM02", "HDD"), ("VM03", "HDD")):
        upload = ingest_path(
            site.campaign,
            DISKSPD,
            scenario={"study": "fleet", "disk_type": disk},
            host=host,
            run=f"fleet-{disk}",
        )
        assert upload.status == "stored", upload.error
    for host in ("FS01", "FS02"):
        upload = ingest_path(
            site.campaign,
            MT16,
            scenario={"technique": "robocopy"},
            host=host,
            run="copy",
            timezone="America/Chicago",
        )
        assert upload.status == "stored", upload.error
    baseline = Scenario.objects.get(campaign=site.campaign, extras__study="fleet", disk_type="SSD")
    address = f"/campaigns/demo/compare/?baseline={baseline.pk}&metric=total.iops"
    open_page(page, site, address)
    assert not page.locator("#detail-table").get_by_text("VM02").count()  # not asked for: no per-host rows
    open_page(page, site, address + "&hosts=1")
    assert page.locator("#f-per-host").is_checked()
    assert page.locator("#detail-table").get_by_text("VM02").count()
    assert _read_back(page, site) >= 2
    open_page(page, site, "/campaigns/demo/copies/?hosts=1")
    assert page.locator("#times-table").get_by_text("FS02").count()
    assert _read_back(page, site) >= 2
    assert site.console == [], site.console

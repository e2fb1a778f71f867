"""Headless Chromium against a live server holding the demo campaign, signed in through a session cookie."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.test import Client

from webapp.core.models import Campaign

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
# Counts the saturated (coloured) pixels of a canvas: data drawn in the palette,
# not the grey grid, black text or transparent background.
COLOURED_PIXELS = """canvas => {
    const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
    let count = 0;
    for (let i = 0; i < data.length; i += 4) {
        const r = data[i], g = data[i + 1], b = data[i + 2], a = data[i + 3];
        if (a > 128 && Math.max(r, g, b) - Math.min(r, g, b) > 60) count++;
    }
    return count;
}"""


@dataclass
class Site:
    url: str
    campaign: Campaign
    client: Client  # signed in, for the API answers to compare with
    console: list[str] = field(default_factory=list)


@pytest.fixture
def site(live_server, transactional_db, settings, monkeypatch) -> Site:
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is missing (apt-get install chromium); .ci/run installs it")
    # Playwright's sync API runs an event loop in this thread; the test's own ORM calls are still synchronous.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    settings.CSP_ENABLED = True
    from tests.factories import make_user
    from tests.webapp.dashboard.demo import add_block_size_runs, load_demo

    campaign = load_demo(kinds=("perfmon_csv", "timings", "diskspd_text"))
    add_block_size_runs(campaign)
    client = Client()
    client.force_login(make_user(campaign.project))
    return Site(live_server.url, campaign, client)


@pytest.fixture
def page(site: Site) -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
        session = site.client.cookies["sessionid"].value
        context.add_cookies([{"name": "sessionid", "value": session, "url": site.url}])
        tab = context.new_page()
        tab.on("console", lambda m: site.console.append(m.text) if m.type == "error" else None)
        tab.on("pageerror", lambda e: site.console.append(str(e)))
        tab.set_default_timeout(20_000)
        try:
            yield tab
        finally:
            browser.close()
            # ORM calls made while Playwright's loop ran may have opened their own connection.
            from django.db import connections

            connections.close_all()


# Built logons (tests/webapp/analysis/logon_study.py) added to the demo for the logon phase tests only, so the
# other tests' figures stay as they are. Redirection off: scales 0.8, 1.0, 1.2 (mean 1.0: profile 1,800.5 ms,
# user policy 4,000, Folder Redirection 2,500, Registry 120, the policy's other 1,380, scripts 1,250, shell
# 1,500, total 7,350); on: 2.4, 3.0, 3.6 (mean 3.0 of each) without Shell-Core, so shell and total are missing.
PHASE_SCALES = {"off": (0.8, 1.0, 1.2), "on": (2.4, 3.0, 3.6)}


@pytest.fixture
def phases_site(site: Site) -> Site:
    from tests.webapp.analysis.logon_study import add_logons

    add_logons(site.campaign, {"study": "logon-phases", "redirection": "off"}, PHASE_SCALES["off"])
    add_logons(
        site.campaign,
        {"study": "logon-phases", "redirection": "on"},
        PHASE_SCALES["on"],
        drop="Microsoft-Windows-Shell-Core",
    )
    return site


@pytest.fixture
def logon_site(live_server, transactional_db, settings, monkeypatch) -> Site:
    """The "Logon load 2015" demo (``load_demo --campaign demo-logon``, webapp/demo/logon_load.py), every upload
    ingested through the real pipeline, with a signed-in member of its project."""
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is missing (apt-get install chromium); .ci/run installs it")
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    settings.CSP_ENABLED = True
    from tests.factories import make_user
    from tests.webapp.dashboard.demo import load_logon_demo

    campaign = load_logon_demo()
    client = Client()
    client.force_login(make_user(campaign.project))
    return Site(live_server.url, campaign, client)

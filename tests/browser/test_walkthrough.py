"""Issue 15 "done when": the whole path a new user walks, on a fresh database, in a real browser.

``manage.py create_project`` makes the project and its owner; the owner signs
in, creates a campaign and an agent token in the dashboard; the real
``headroom-agent`` uploads real files to the live server, where a live Celery
worker parses them: four consecutive 12-hour slices of one real perfmon log
(``rajitharul_perfmon_SriLanka_1.2MB.csv``) as load steps 100-400 (``--step``,
slices ordered by rising CPU so the curve climbs), and the two DiskSpd text
reports of different block sizes (8 KiB at 330,118.77 IO/s, 4 KiB at
508.09 IO/s). The owner reads the capacity answer (threshold 8 %, which the
curve crosses) and the block-size answer, shares the capacity view, and an
anonymous browser reads the headline sentence. Screenshots at 1440 and 390 px
are kept under ``var/test/artefacts/walkthrough/`` (the path is printed).
"""

from __future__ import annotations

import csv
import io
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from tests.agents.conftest import AgentRunner, agent_home, run_agent  # noqa: F401 (fixtures)
from tests.browser.conftest import ARGS, CHROMIUM
from tests.conftest import wait_for
from tests.paths import FIXTURES, REPO
from webapp.core.models import Upload

pytestmark = [
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("settled_worker"),
]

ARTEFACTS = REPO / "var" / "test" / "artefacts" / "walkthrough"
PERFMON = FIXTURES / "perfmon_csv" / "rajitharul_perfmon_SriLanka_1.2MB.csv"
DISKSPD = [
    FIXTURES / "diskspd_txt" / "vc_DiskSpd_Write8k_utf8bom_manythreads.txt",
    FIXTURES / "diskspd_txt" / "vc_DiskSpd_2.2.0_SingleGroup.txt",
]
PASSWORD = "walk-through-pass-1234"


def perfmon_steps(directory: Path) -> list[tuple[int, Path]]:
    """The log cut into four consecutive slices (header kept), as (users, file), CPU rising with users."""
    with PERFMON.open(newline="") as handle:
        header, *rows = list(csv.reader(handle))
    size = len(rows) // 4
    slices = [rows[i * size : (i + 1) * size] for i in range(4)]

    def cpu(part: list[list[str]]) -> float:
        cut = len(part) // 10  # the capacity method trims 10 % of each step at each end
        values = [float(r[1]) for r in part[cut : len(part) - cut] if r[1].strip()]
        return sum(values) / len(values)

    out = []
    for users, part in zip((100, 200, 300, 400), sorted(slices, key=cpu), strict=True):
        path = directory / f"fs1-step-{users}.csv"
        buffer = io.StringIO()
        csv.writer(buffer, quoting=csv.QUOTE_ALL, lineterminator="\r\n").writerows([header, *part])
        path.write_text(buffer.getvalue(), encoding="utf-8")
        out.append((users, path))
    return out


@pytest.fixture
def browser(live_server: Any, worker_process: subprocess.Popen[bytes], monkeypatch) -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is missing")
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield launched
        finally:
            launched.close()
            from django.db import connections

            connections.close_all()


def shoot(page: Any, name: str) -> list[Path]:
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    paths = []
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_timeout(400)  # charts redraw at the new width
        path = ARTEFACTS / f"{name}-{width}.png"
        page.screenshot(path=str(path), full_page=True)
        paths.append(path)
        assert page.evaluate("document.documentElement.scrollWidth") <= width + 1, (name, width)
    page.set_viewport_size({"width": 1440, "height": 900})
    return paths


def test_a_new_user_gets_from_files_to_a_shared_answer(
    live_server: Any,
    browser: Any,
    run_agent: AgentRunner,  # noqa: F811 (the fixture imported above)
    tmp_path: Path,
) -> None:
    site = live_server.url
    call_command("create_project", "acme", "--name", "ACME file servers", "--owner", "ana", "--password", PASSWORD,
                 stdout=io.StringIO())  # fmt: skip
    context = browser.new_context(
        viewport={"width": 1440, "height": 900}, permissions=["clipboard-read", "clipboard-write"]
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_default_timeout(30_000)

    # Sign in, create the campaign in the dashboard.
    page.goto(site + "/accounts/login/")
    page.fill("#id_username", "ana")
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.goto(site + "/campaigns/new")
    page.fill("#c-slug", "fs-capacity")
    page.fill("#c-name", "File server capacity")
    page.check("input[name=dimension][value=disk_type]")
    page.check("input[name=dimension][value=av]")
    page.click("button.btn-primary")
    page.wait_for_url(re.compile(r"/campaigns/fs-capacity/"))

    # A token for the agent.
    page.goto(site + "/accounts/projects/acme/tokens/")
    page.fill("#token-name", "FS1 agent")
    page.click("form:has(#token-name) button[type=submit]")
    token = page.locator("#new-token").inner_text().strip()
    assert token

    # The real agent uploads the real files; the live worker stores them.
    connect = ["--server", site, "--token", token, "--campaign", "fs-capacity", "--no-progress"]
    scenario = ["--scenario", "disk_type=SSD", "av=off", "--host", "FS1", "--role", "server"]
    for users, path in perfmon_steps(tmp_path):
        done = run_agent(
            "upload", str(path), *connect, *scenario, "--step", str(users), "--run", "fsct-1", "--wait"
        )
        assert done.returncode == 0, done.output
    done = run_agent("upload", *map(str, DISKSPD), *connect, *scenario, "--wait")
    assert done.returncode == 0, done.output
    wait_for(lambda: Upload.objects.filter(status="stored").count() == 6, timeout=120)
    assert not Upload.objects.exclude(status="stored").exists()

    # The capacity answer at an 8 % threshold (this real server idles at 7-8.5 %), as the API computes it.
    page.goto(site + "/campaigns/fs-capacity/capacity/?threshold=8")
    page.wait_for_selector("body[data-state=ready]")
    owner = Client()
    owner.force_login(get_user_model().objects.get(username="ana"))
    api = owner.get("/api/v1/campaigns/fs-capacity/capacity", {"threshold": 8}).json()
    (answer,) = api["scenarios"]
    assert answer["bound"] == "interpolated" and 200 < answer["saturation_users"] < 300, [
        (s["users"], s["avg"]) for s in answer["steps"]
    ]
    assert [s["users"] for s in answer["steps"]] == [100, 200, 300, 400]
    carried = f"{answer['saturation_users']:,.0f}"
    assert carried in page.locator("#saturation-table").inner_text()
    capacity_shots = shoot(page, "capacity")

    # Block size: 8 KiB and 4 KiB stay apart (never one averaged run).
    page.goto(site + "/campaigns/fs-capacity/block-size/")
    page.wait_for_selector("body[data-state=ready]")
    points = page.locator("#points-table").inner_text()
    assert "4 KiB" in points and "8 KiB" in points
    assert re.search(r"8 KiB\tiops\ttotal\t\t330,11[89]", points), points
    assert re.search(r"4 KiB\tiops\ttotal\t\t508\.09\t", points), points
    assert "165,313" not in points
    blocks = shoot(page, "block-size")

    # Share the capacity view as it is, copy the link.
    page.goto(site + "/campaigns/fs-capacity/capacity/?threshold=8")
    page.wait_for_selector("body[data-state=ready]")
    page.click("#share-this")
    url = page.locator("#new-share-url").inner_text().strip()
    assert "/s/hs_" in url
    page.click("#copy-share-url")
    page.wait_for_function("document.getElementById('copy-share-status').textContent !== ''")
    assert page.locator("#copy-share-status").inner_text() == "Copied."
    assert page.evaluate("navigator.clipboard.readText()") == url

    # A stakeholder without an account opens it and reads the answer first.
    stranger = browser.new_context(viewport={"width": 1440, "height": 900})
    shared = stranger.new_page()
    shared.on("pageerror", lambda e: errors.append(str(e)))
    shared.goto(url)
    shared.wait_for_selector("body[data-state=ready]")
    headline = shared.locator("#answer li").first.inner_text()
    assert headline == f"The server on SSD with AV off carries {carried} users before CPU reaches 8 %.", (
        headline
    )
    share_shots = shoot(shared, "share")
    assert errors == [], errors
    print("walkthrough screenshots:", *[str(p) for p in capacity_shots + blocks + share_shots], sep="\n  ")

"""A shared copy comparison shows each copy's time to complete, as the copies page does."""

from __future__ import annotations

import html
import json
import re
from datetime import datetime

import pytest

from tests.factories import make_campaign
from tests.ingest import ingest_path
from tests.paths import FIXTURES
from webapp.sharing.copies import duration_text
from webapp.sharing.models import ShareLink

pytestmark = pytest.mark.django_db

LOG = FIXTURES / "robocopy" / "ripvannwinkler_robocopy_NFL_MT16.log"


def started_ended_source(text: str) -> tuple[float, str]:
    """Seconds from the log's Started to its Ended line, and its Source."""
    stamp = "%A, %B %d, %Y %I:%M:%S %p"
    started = datetime.strptime(re.search(r"Started : (.+)", text).group(1).strip(), stamp)
    ended = datetime.strptime(re.search(r"Ended : (.+)", text).group(1).strip(), stamp)
    source = re.search(r"Source : (.+)", text).group(1).strip()
    return (ended - started).total_seconds(), source


def test_the_copies_link_shows_time_to_complete_per_copy(client):
    campaign = make_campaign()
    upload = ingest_path(campaign, LOG, host="COPY01", role="server", timezone="Europe/London")
    assert upload.status == "stored", upload.error
    seconds, source = started_ended_source(LOG.read_text(encoding="utf-8", errors="replace"))
    assert (seconds, source) == (51.0, "C:\\Users\\Chris\\.lmstudio\\models\\")
    _, token = ShareLink.issue(campaign, "copies", {})

    page = html.unescape(client.get(f"/s/{token}/").content.decode())
    assert "<h2>Time to complete</h2>" in page
    row = re.search(r"<tr><td>robocopy</td>(.*?)</tr>", page, flags=re.DOTALL)
    assert row, page
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row.group(1))
    assert cells[0] == source and cells[2:] == ["1", "51 s", "51 s", "51 s"]
    assert "/MT:16" in cells[1]
    data = json.loads(
        re.search(r'<script id="copies-data" type="application/json">(.*?)</script>', page).group(1)
    )
    assert [(r["technique"], r["mean_s"], r["rounds"]) for r in data] == [("robocopy", seconds, 1)]


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(None, "—"), (0.4, "0 s"), (51, "51 s"), (60, "1 min 0 s"), (3725.6, "1 h 2 min 6 s")],
)
def test_durations_read_as_on_the_copies_page(seconds, text):
    assert duration_text(seconds) == text

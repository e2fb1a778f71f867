"""The trace explorer lists the runs that have counter samples in their own span, and opens on one."""

from __future__ import annotations

import pytest

from tests.factories import make_campaign
from tests.ingest import ingest_path
from tests.paths import FIXTURES

pytestmark = pytest.mark.django_db

LOG = FIXTURES / "perfmon_csv" / "rajitharul_perfmon_SriLanka_1.2MB.csv"


def test_the_trace_explorer_offers_only_runs_with_samples_in_their_span(client):
    """A robocopy run on a traced machine has its series but no samples in its own span."""
    from tests.factories import make_user
    from webapp.dashboard.views.traces import traced_runs

    campaign = make_campaign()
    campaign.dimensions = ["av", "technique"]
    campaign.save()
    traced = ingest_path(campaign, LOG, host="DESKTOP-FUOCR3U", role="server", scenario={"av": "on"})
    copy = ingest_path(
        campaign,
        FIXTURES / "robocopy" / "andrew_robocopy_utf16_NFL.log",
        host="DESKTOP-FUOCR3U",
        role="server",
        scenario={"technique": "robocopy"},
        timezone="UTC",
    )
    assert traced.status == copy.status == "stored", (traced.error, copy.error)
    assert copy.run is not None and traced.run is not None
    assert copy.run.hosts.filter(series__isnull=False).exists()  # the machine has series ...
    assert [r.pk for r in traced_runs(campaign)] == [traced.run.pk]  # ... but only one run samples
    client.force_login(make_user(campaign.project))
    page = client.get(f"/campaigns/{campaign.slug}/traces/").content.decode()
    assert f'"run": {traced.run.pk}' in page

"""Counters belong to the machine their perfmon path names, not to the machine that uploaded them."""

from __future__ import annotations

import pytest

from tests.factories import make_campaign
from tests.ingest import ingest_bytes, ingest_path
from tests.paths import FIXTURES
from webapp.core.models import Host
from webapp.timeseries.models import CounterSeries

pytestmark = pytest.mark.django_db

# Every column reads \\DESKTOP-FUOCR3U\...: 4 counters.
LOG = FIXTURES / "perfmon_csv" / "rajitharul_perfmon_SriLanka_1.2MB.csv"


def test_a_log_collected_elsewhere_is_filed_under_the_machine_it_names():
    campaign = make_campaign()
    upload = ingest_path(campaign, LOG, host="COLLECTOR", role="server", scenario={"av": "on"})
    assert upload.status == "stored", upload.error

    assert upload.host is not None and upload.host.name == "COLLECTOR"  # the uploader stays the uploader
    series = CounterSeries.objects.filter(host__project=campaign.project).select_related("host")
    assert {s.host.name for s in series} == {"DESKTOP-FUOCR3U"}
    assert series.count() == 4
    assert upload.run is not None
    assert [h.name for h in upload.run.hosts.all()] == ["DESKTOP-FUOCR3U"]
    machine = Host.objects.get(project=campaign.project, name="DESKTOP-FUOCR3U")
    assert machine.role == "server"


def test_the_same_machine_in_another_case_is_one_host_and_no_uploader_is_needed():
    campaign = make_campaign()
    first = ingest_path(campaign, LOG, host="desktop-fuocr3u", role="server", scenario={"av": "on"})
    assert first.status == "stored", first.error
    assert set(CounterSeries.objects.values_list("host__name", flat=True)) == {"desktop-fuocr3u"}
    assert CounterSeries.objects.count() == 4

    # Sent without a host (a script on a file share): the log's own machine names suffice.
    disks = FIXTURES / "perfmon_csv" / "narmadha_DataCollector01_LogicalDisk_IST.csv"
    anonymous = ingest_bytes(
        campaign, disks.read_bytes(), filename=disks.name, role="server", scenario={"av": "off"}
    )
    assert anonymous.status == "stored", anonymous.error
    assert anonymous.host is None
    assert anonymous.run is not None and [h.name for h in anonymous.run.hosts.all()] == ["IMPC3116"]
    assert set(CounterSeries.objects.values_list("host__name", flat=True)) == {"desktop-fuocr3u", "IMPC3116"}

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


GP_LOG = FIXTURES / "eventlog_logon" / "aaronthopliss_GroupPolicy_Operational_small.evtx"


def logged_on(path) -> set[str]:
    """The ``Computer`` of every record, read from the library's XML rendering of the file."""
    import xml.etree.ElementTree as ET

    import evtx

    names = set()
    for item in evtx.PyEvtxParser(str(path)).records():
        found = ET.fromstring(item["data"]).find(".//{*}System/{*}Computer")
        names.add((found.text or "") if found is not None else "")
    return names


def measurement_hosts(upload) -> dict[str, int]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT h.name, count(*) FROM measurement m JOIN core_host h ON h.id = m.host_id"
            " WHERE m.upload_id = %s GROUP BY h.name",
            [upload.pk],
        )
        return dict(cursor.fetchall())


def test_an_event_log_is_filed_under_the_machine_that_logged_it():
    """Issue 20 item 10: the host is the event log's ``Computer``; the sender stays the uploader."""
    (computer,) = logged_on(GP_LOG)
    campaign = make_campaign()
    upload = ingest_path(campaign, GP_LOG, host="COLLECTOR", scenario={"av": "on"})
    assert upload.status == "stored", upload.error
    assert upload.host is not None and upload.host.name == "COLLECTOR"
    assert measurement_hosts(upload) == {computer: upload.rows}
    assert upload.rows == 2  # one computer and one user policy run (parsers/evtx/test_real_logs.py)


def test_a_dns_name_and_its_first_label_are_one_machine():
    from webapp.core.models import Upload
    from workers.pipeline.recorded_hosts import host_named

    campaign = make_campaign()
    upload = Upload(campaign=campaign, role="client")
    short = Host.objects.create(project=campaign.project, name="VDI-07")
    assert host_named(upload, "vdi-07.corp.example") == short  # an event log's Computer
    assert host_named(upload, "VDI-07") == short
    dotted = Host.objects.create(project=campaign.project, name="FS01.corp.example")
    assert host_named(upload, "fs01") == dotted  # a perfmon path's \\FS01
    # Two machines of that name in different domains: the short name is ambiguous, so it is new.
    Host.objects.create(project=campaign.project, name="FS01.lab.example")
    made = host_named(upload, "FS01")
    assert made not in (short, dotted) and made.name == "FS01" and made.role == "client"
    assert host_named(make_upload_elsewhere(), "VDI-07") != short  # another project's machines stay apart


def make_upload_elsewhere():
    from webapp.core.models import Upload

    return Upload(campaign=make_campaign(), role="client")

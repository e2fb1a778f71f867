"""A real .blg is answered with its relog command; a Linux sysstat log sits beside a Windows perfmon log."""

from __future__ import annotations

import pytest
from django.db import connection

from tests.ingest import ingest_path
from tests.paths import FIXTURES
from webapp.analysis.limits import campaign_limits, watched_series
from webapp.core.models import Run

pytestmark = pytest.mark.django_db

BLG = FIXTURES / "perfmon_blg" / "txrx_BasicPerfCounters.blg"
SYSSTAT = FIXTURES / "sysstat" / "sysstat-tests_sadf-j_A.json"
PERFMON = FIXTURES / "perfmon_csv" / "rajitharul_perfmon_SriLanka_1.2MB.csv"


def test_a_binary_perfmon_log_fails_with_the_relog_command_for_its_name(campaign):
    upload = ingest_path(campaign, BLG, host="GEORGIS3", role="server", filename="DataCollector01.blg")
    assert upload.status == "failed"
    assert upload.error["parser"] == "blg"
    assert "`relog DataCollector01.blg -f csv -o DataCollector01.csv`" in upload.error["message"]
    assert upload.rows == 0


def test_a_sysstat_log_and_a_perfmon_log_share_resource_names_and_limits(campaign):
    linux = ingest_path(campaign, SYSSTAT, host="smb1", role="server", run="mixed")
    windows = ingest_path(campaign, PERFMON, host="win1", role="server", run="mixed")
    assert linux.status == "stored", linux.error
    assert windows.status == "stored", windows.error
    assert linux.parser == "sysstat"
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT h.name, count(*) FROM counter_sample s JOIN timeseries_counterseries c ON c.id = s.series_id "
            "JOIN core_host h ON h.id = c.host_id WHERE c.object = 'Processor' AND c.instance = '_Total' "
            "AND c.counter = '% Processor Time' GROUP BY h.name ORDER BY h.name"
        )
        per_host = dict(cursor.fetchall())
    # the sysstat file has five statistics; the machine is its nodename, not the uploader
    assert per_host["SYSSTAT.TEST"] == 5
    text = PERFMON.read_text(encoding="utf-8").splitlines()[1:]
    cpu_cells = [row.split('","')[1] for row in text if row]
    assert per_host["DESKTOP-FUOCR3U"] == len([cell for cell in cpu_cells if cell.strip()])
    run = Run.objects.get(pk=linux.run_id)
    watched = watched_series([run], campaign_limits(campaign))[run.pk]
    paths = {(w.host, w.path) for w in watched}
    assert ("SYSSTAT.TEST", "\\Processor(_Total)\\% Processor Time") in paths
    assert ("SYSSTAT.TEST", "\\Memory\\Available MBytes") in paths
    assert ("SYSSTAT.TEST", "\\PhysicalDisk(sda)\\Avg. Disk Queue Length") in paths
    assert ("SYSSTAT.TEST", "\\PhysicalDisk(sda)\\Avg. Disk sec/Transfer") in paths
    windows_paths = {path for host, path in paths if host != "SYSSTAT.TEST"}
    assert "\\Processor(_Total)\\% Processor Time" in windows_paths
    assert "\\Memory\\Available MBytes" in windows_paths

"""Block sizes and benchmark figure names are read the way DiskSpd and fio results are stored."""

from __future__ import annotations

import pytest

from tests.ingest import ingest_path
from tests.paths import FIXTURES
from webapp.analysis.blocksize import Figure, block_bytes, block_size_points, classify


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("4096", 4096),
        ("4K", 4096),
        ("64KiB", 65536),
        ("1M", 1048576),
        ("65536,4096", 65536),  # fio bs=64k,4k: reads first
        ("4096-16384", 4096),  # a range: its lower end
        ("", None),
        ("big", None),
    ],
)
def test_block_sizes_become_bytes(text, expected):
    assert block_bytes(text) == expected


@pytest.mark.parametrize(
    ("metric", "unit", "expected"),
    [
        ("read.iops", "IO/s", Figure("iops", "read", "", "IO/s")),
        ("total.mbps", "MB/s", Figure("mbps", "total", "", "MB/s")),
        ("write.latency.avg_ms", "ms", Figure("latency", "write", "mean", "ms")),
        ("read.latency.p99_9_ms", "ms", Figure("latency", "read", "p99_9", "ms")),
        ("read.clat.p99_ms", "ms", Figure("latency", "read", "clat p99", "ms")),
        ("read.lat.mean_ms", "ms", Figure("latency", "read", "mean", "ms")),
        ("read.iops_stddev", "IO/s", None),  # a spread, not a level
        ("read.latency.stddev_ms", "ms", None),
        ("read.bw_bytes_per_s", "B/s", None),  # the same figure as read.mbps
        ("cpu.usr_pct", "%", None),
    ],
)
def test_benchmark_figures_fall_into_the_charted_families(metric, unit, expected):
    assert classify(metric, unit) == expected


def test_latency_in_microseconds_is_charted_in_milliseconds():
    figure = classify("read.clat.p50_us", "us")
    assert figure is not None and figure.family == "latency" and figure.scale == pytest.approx(0.001)


@pytest.mark.django_db
def test_two_executions_at_one_block_size_are_two_lines_never_averaged(campaign):
    """Real reports, both 4 KiB: a 70/30 mix at 1,189.03 IO/s and a write-only run at 508.09 IO/s."""
    scenario = {"disk_type": "SSD"}
    for name in ("vc_DiskSpd_2.0.21_ReadWrite_noCmdLine.txt", "vc_DiskSpd_2.2.0_SingleGroup.txt"):
        upload = ingest_path(campaign, FIXTURES / "diskspd_txt" / name, scenario=scenario, host="SRV")
        assert upload.status == "stored", upload.error
    iops = sorted(
        (p.execution, p.value, p.runs)
        for p in block_size_points(campaign)
        if p.family == "iops" and p.direction == "total" and p.block_bytes == 4096
    )
    assert [(round(value, 2), runs) for _, value, runs in iops] == [(508.09, 1), (1189.03, 1)]
    executions = [execution for execution, _, _ in iops]
    assert "100 % write" in executions[0] and "30 % write" in executions[1]  # named by what differs
    assert executions[0] != executions[1]


@pytest.mark.django_db
def test_a_fleet_of_two_hosts_in_one_run_is_summed_with_per_host_rows(campaign):
    """The same real DiskSpd XML from two VMs into one run: both stored, rates summed, latency per host.

    The file's own figures (vc_Results_DiskSpd_2.0.21a.xml): total IOPS of the run is the sum of
    its targets' IOPS; with two hosts, block size shows twice that, from 2 hosts.
    """
    from tests.factories import make_campaign

    path = FIXTURES / "diskspd_xml" / "vc_Results_DiskSpd_2.0.21a.xml"
    other = make_campaign(campaign.project)
    alone = ingest_path(other, path, scenario={"disk_type": "HDD"}, host="VM01", run="solo")
    assert alone.status == "stored", alone.error
    single = {(p.family, p.direction, p.stat): p.value for p in block_size_points(other)}
    assert single[("iops", "total", "")] == pytest.approx(440.92, abs=0.01)  # the file's Total IO/s
    for host in ("VM01", "VM02"):
        upload = ingest_path(campaign, path, scenario={"disk_type": "HDD"}, host=host, run="fleet")
        assert upload.status == "stored", upload.error
    fleet = [p for p in block_size_points(campaign) if p.label == "disk_type=HDD"]
    iops = next(p for p in fleet if p.family == "iops" and p.direction == "total")
    assert iops.value == pytest.approx(2 * single[("iops", "total", "")])
    assert (iops.hosts, iops.runs, iops.combined) == (2, 1, "sum")
    assert [name for name, _ in iops.per_host] == ["VM01", "VM02"]
    assert [value for _, value in iops.per_host] == pytest.approx([single[("iops", "total", "")]] * 2)
    for p in fleet:
        if p.family == "latency":  # the same figure on both hosts: the combination equals it
            assert p.value == pytest.approx(single[("latency", p.direction, p.stat)])
            assert p.combined in ("IOPS-weighted mean", "maximum", "minimum")


@pytest.mark.django_db
def test_compare_sums_a_fleets_rates_and_pools_its_latencies(campaign):
    from webapp.analysis.compare import campaign_compare
    from webapp.core.models import Scenario

    path = FIXTURES / "diskspd_xml" / "vc_Results_DiskSpd_2.0.21a.xml"
    for host, disk in (("VM01", "SSD"), ("VM02", "HDD"), ("VM03", "HDD")):
        upload = ingest_path(campaign, path, scenario={"disk_type": disk}, host=host, run=f"{disk}-run")
        assert upload.status == "stored", upload.error
    baseline = Scenario.objects.get(campaign=campaign, disk_type="SSD")
    rows = campaign_compare(campaign, baseline, "total.iops")["results"]
    fleet = next(r for r in rows if r["dims"] == {"disk_type": "HDD"} and r["subject"] in ("", "total"))
    alone = next(r for r in rows if r["is_baseline"] and r["subject"] == fleet["subject"])
    assert alone["mean"] == pytest.approx(52915 / 120.01, abs=0.01)  # IOCount / TestTimeSeconds
    assert (fleet["n"], fleet["factor"]) == (
        1,
        pytest.approx(2.0),
    )  # two VMs at once: one result, twice the rate


@pytest.mark.django_db
def test_two_tests_of_one_file_on_two_disks_are_two_executions(campaign):
    """One text file holding the real SingleGroup report twice: on C: (as written) and on D:.

    Alike but for the disk they tested, they are two executions (two runs, two lines named
    by their target), not repetitions averaged into one point.
    """
    first = (FIXTURES / "diskspd_txt" / "vc_DiskSpd_2.2.0_SingleGroup.txt").read_bytes()
    second = first.replace(b"C:\\diskspd-test.dat", b"D:\\diskspd-test.dat").replace(
        b"2026/06/22 22:16:45 UTC", b"2026/06/22 22:30:00 UTC"
    )
    from tests.ingest import ingest_bytes

    upload = ingest_bytes(campaign, first + second, filename="two-disks.txt", scenario={"disk_type": "mixed"})
    assert upload.status == "stored", upload.error
    iops = sorted(
        (p.execution, round(p.value, 2), p.runs)
        for p in block_size_points(campaign)
        if p.family == "iops" and p.direction == "total"
    )
    assert len(iops) == 2
    assert [(value, runs) for _, value, runs in iops] == [(508.09, 1), (508.09, 1)]
    assert "C:\\diskspd-test.dat" in iops[0][0] and "D:\\diskspd-test.dat" in iops[1][0]

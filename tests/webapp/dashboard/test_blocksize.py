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

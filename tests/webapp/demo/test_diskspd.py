"""The demo campaign's DiskSpd reports by block size (seed 000): real layout, the seed study's throughput."""

from __future__ import annotations

from tests.webapp.demo.helpers import CAMPAIGN, _decoded
from webapp.demo.files import DemoUpload
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.diskspd import DiskSpdTextParser

BLOCKS = (4096, 8192, 16384, 65536, 262144, 1048576)


def _diskspd(upload: DemoUpload) -> dict[tuple[int, str], float]:
    """(block size, metric) -> the figure of the whole run (subject ""), parsed by the DiskSpd text parser."""
    decoded = _decoded(upload.content)
    parser = DiskSpdTextParser()
    assert parser.detect(decoded.head_bytes, decoded.head_text) == 90
    parsed = parser.parse(decoded, ParseContext(filename=upload.filename, host=upload.host))
    figures: dict[tuple[int, str], float] = {}
    for m in parsed.measurements:
        assert m.params is not None
        if m.subject == "":
            figures[int(m.params["block_size"]), m.metric] = m.value
    return figures


DISKSPD = {
    (u.scenario["smb_dialect"], u.scenario["power_profile"]): _diskspd(u)
    for u in CAMPAIGN.uploads
    if u.kind == "diskspd_text"
}


def test_it_sweeps_six_block_sizes_per_dialect_and_power_profile_in_real_diskspd_reports() -> None:
    uploads = [u for u in CAMPAIGN.uploads if u.kind == "diskspd_text"]
    assert sorted(DISKSPD) == [
        ("2.1", "balanced"),
        ("2.1", "high performance"),
        ("3.02", "balanced"),
        ("3.02", "high performance"),
    ]
    for upload in uploads:
        text = upload.content.decode("ascii")
        assert text.count("Command Line: C:\\DiskSpd\\amd64fre\\diskspd.exe -c256M -b") == 6
        assert "\r\n" in text and "\n" not in text.replace("\r\n", "")
        assert upload.role == "client" and upload.scenario["study"] == "smb-block-size"
    for figures in DISKSPD.values():
        assert sorted({block for block, _ in figures}) == list(BLOCKS)
        for block in BLOCKS:
            # DiskSpd's own arithmetic: bytes = I/Os x block size; total = read + write; 70/30 mix.
            assert figures[block, "total.bytes"] == figures[block, "total.ios"] * block
            assert figures[block, "total.ios"] == figures[block, "read.ios"] + figures[block, "write.ios"]
            assert 0.29 < figures[block, "write.ios"] / figures[block, "total.ios"] < 0.31


def test_it_shows_no_throughput_difference_between_smb_2_1_and_3_02_in_high_performance_mode() -> None:
    for block in BLOCKS:
        old = DISKSPD["2.1", "high performance"][block, "total.mbps"]
        new = DISKSPD["3.02", "high performance"][block, "total.mbps"]
        assert abs(old / new - 1) < 0.03, block


def test_it_drops_4k_and_8k_throughput_in_balanced_mode_more_for_smb_2_1_reads() -> None:
    for dialect in ("2.1", "3.02"):
        for block in BLOCKS:
            ratio = (
                DISKSPD[dialect, "balanced"][block, "total.mbps"]
                / DISKSPD[dialect, "high performance"][block, "total.mbps"]
            )
            if block <= 8192:
                assert ratio < 0.9, (dialect, block)
            else:
                assert ratio > 0.95, (dialect, block)
    for block in (4096, 8192):
        assert (
            DISKSPD["2.1", "balanced"][block, "read.mbps"] < DISKSPD["3.02", "balanced"][block, "read.mbps"]
        )
        # SMB 2.1's reads wait longer than its writes only when the host saves power.
        assert (
            DISKSPD["2.1", "balanced"][block, "read.latency.avg_ms"]
            > DISKSPD["2.1", "balanced"][block, "write.latency.avg_ms"]
        )
        assert (
            DISKSPD["3.02", "balanced"][block, "read.latency.avg_ms"]
            < DISKSPD["3.02", "balanced"][block, "write.latency.avg_ms"]
        )


def test_it_keeps_throughput_under_what_gigabit_ethernet_carries() -> None:
    for figures in DISKSPD.values():
        speeds = [figures[block, "total.mbps"] for block in BLOCKS]
        assert speeds == sorted(speeds)
        assert max(speeds) < 125  # MB/s: 1 Gbit/s

"""The DiskSpd XML parser against the real results, and documents broken on purpose.

Expected numbers are read straight from the documents with ElementTree, and
the headline ones are also written out literally after checking them by hand.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.workers.pipeline.parsers.diskspd.helpers import (
    PKB,
    TEXT_POINTS,
    VC_XML,
    XML_FILES,
    XMLP,
    _error,
    _parse,
    _values,
)


def _xml_expectations(path: Path) -> dict[tuple[str, str], float]:
    """Totals straight from the document with ElementTree: sums over <Thread><Target>."""
    root = ET.parse(path).getroot()
    timespan = root.find("TimeSpan")
    assert timespan is not None
    seconds = float(timespan.findtext("TestTimeSeconds") or "nan")
    sums: dict[str, float] = defaultdict(float)
    for target in timespan.iter("Target"):
        for tag in ("ReadBytes", "ReadCount", "WriteBytes", "WriteCount"):
            sums[tag] += int(target.findtext(tag) or "0")
    expected = {
        ("", "read.bytes"): sums["ReadBytes"],
        ("", "write.bytes"): sums["WriteBytes"],
        ("", "total.bytes"): sums["ReadBytes"] + sums["WriteBytes"],
        ("", "read.ios"): sums["ReadCount"],
        ("", "total.ios"): sums["ReadCount"] + sums["WriteCount"],
        ("", "read.iops"): sums["ReadCount"] / seconds,
        ("", "write.iops"): sums["WriteCount"] / seconds,
        ("", "total.iops"): (sums["ReadCount"] + sums["WriteCount"]) / seconds,
        ("", "total.mbps"): (sums["ReadBytes"] + sums["WriteBytes"]) / seconds / 1e6,
        ("", "write.mbps"): sums["WriteBytes"] / seconds / 1e6,
    }
    average = timespan.find("CpuUtilization/Average")
    assert average is not None
    for name in ("Usage", "User", "Kernel", "Idle"):
        expected[("", f"cpu.{name.lower()}_pct")] = float(average.findtext(f"{name}Percent") or "nan")
    latency = timespan.find("Latency")
    if latency is not None:
        expected[("", "total.latency.avg_ms")] = float(latency.findtext("AverageTotalMilliseconds") or "nan")
        for bucket in latency.findall("Bucket"):
            percentile = bucket.findtext("Percentile")
            point = {"0": "min", "50": "p50", "99": "p99", "99.9": "p99_9", "100": "max"}.get(
                percentile or ""
            )
            if point:
                expected[("", f"total.latency.{point}_ms")] = float(
                    bucket.findtext("TotalMilliseconds") or "nan"
                )
                expected[("", f"read.latency.{point}_ms")] = float(
                    bucket.findtext("ReadMilliseconds") or "nan"
                )
    return expected


@pytest.mark.parametrize("path", XML_FILES, ids=lambda p: p.name)
def test_it_reads_every_real_xml_result_as_elementtree_sees_it(path: Path) -> None:
    parsed = _parse(XMLP, path)
    got = _values(parsed)
    for key, value in _xml_expectations(path).items():
        assert got[key] == pytest.approx(value), key
    root = ET.parse(path).getroot()
    run_time = datetime.strptime(root.findtext("System/RunTime") or "", "%Y/%m/%d %H:%M:%S UTC")
    assert {item.time for item in parsed.measurements} == {run_time.replace(tzinfo=UTC)}
    target = root.find("Profile/TimeSpans/TimeSpan/Targets/Target")
    assert target is not None
    assert parsed.run_attributes["block_size"] == target.findtext("BlockSize")
    assert parsed.run_attributes["threads"] == root.findtext("TimeSpan/ThreadCount")
    assert parsed.run_attributes["write_pct"] == target.findtext("WriteRatio")
    assert parsed.run_attributes["outstanding_io"] == target.findtext("RequestCount")
    assert parsed.run_attributes["diskspd_version"] == "2.0.21a"
    assert {item.subject for item in parsed.measurements} == {"", target.findtext("Path")}
    assert parsed.parser == "diskspd_xml"
    assert parsed.tool == "diskspd"


def test_it_reads_the_pkb_xml_without_latency_figures_checked_by_hand() -> None:
    parsed = _parse(XMLP, PKB)
    got = _values(parsed)
    # 4 threads, 22645 + 22623 + 22548 + 23154 reads of 64 KiB in 30.02 s
    assert got[("", "total.ios")] == 90970
    assert got[("", "total.iops")] == pytest.approx(3030.313, abs=0.001)
    assert got[("", "read.mbps")] == pytest.approx(198.595, abs=0.001)
    assert got[("", "write.ios")] == 0
    assert got[("", "cpu.usage_pct")] == 3.20
    assert not [metric for _, metric in got if ".latency." in metric]
    assert parsed.run_attributes == {
        "block_size": "65536",
        "threads": "4",
        "outstanding_io": "2",
        "write_pct": "0",
        "duration_s": "30",
        "warmup_s": "5",
        "random": "false",
        "software_cache": "disabled",
        "write_through": "true",
        "targets": "1",
        "target": r"C:\scratch\testfile.dat",
        "computer_name": "pkb-044ffc87-0",
        "diskspd_version": "2.0.21a",
    }


def test_it_reads_the_108_bucket_xml_figures_checked_by_hand() -> None:
    assert VC_XML.read_text().count("<Bucket>") == 108
    got = _values(_parse(XMLP, VC_XML))
    assert got[("", "total.iops")] == pytest.approx(52915 / 120.01)
    assert got[("", "read.ios")] == 37162
    assert got[("", "write.ios")] == 15753
    assert got[("", "total.latency.avg_ms")] == 2.266
    assert got[("", "read.latency.stddev_ms")] == 2.732
    assert got[("", "total.latency.p50_ms")] == 2.128
    assert got[("", "write.latency.p99_9_ms")] > got[("", "write.latency.p99_ms")]
    assert got[("", "total.latency.max_ms")] == 33.846
    assert got[("", "total.iops_stddev")] == 45.369
    assert got[("", "cpu.usage_pct")] == 0.99
    # the text report's percentile points, not the XML's 1..99 series
    names = sorted(
        m.split(".")[2][:-3]
        for s, m in got
        if s == "" and m.startswith("total.latency.") and "avg" not in m and "stddev" not in m
    )
    assert names == sorted(TEXT_POINTS)
    assert got[("diskspd.test", "total.latency.p99_ms")] == got[("", "total.latency.p99_ms")]


def test_it_reads_xml_with_a_declaration_and_text_around_it() -> None:
    raw = (
        b'PS C:\\> diskspd -Rxml ...\r\n<?xml version="1.0" encoding="UTF-8"?>\r\n'
        + PKB.read_bytes()
        + b"\r\nPS C:\\>"
    )
    assert _values(_parse(XMLP, raw)) == _values(_parse(XMLP, PKB))


def test_it_reads_appended_xml_documents_as_separate_runs() -> None:
    raw = PKB.read_bytes() + b"\n" + VC_XML.read_bytes()
    parsed = _parse(XMLP, raw)
    blocks = {item.params["block_size"] for item in parsed.measurements if item.params}
    assert blocks == {"65536", "4096"}
    assert len({item.time for item in parsed.measurements}) == 2
    vc = [m for m in parsed.measurements if m.params and m.params["block_size"] == "4096"]
    assert {(m.subject, m.metric): m.value for m in vc} == _values(_parse(XMLP, VC_XML))
    # the second document's lines count from the first line of the file
    offset = PKB.read_bytes().count(b"\n") + 1
    assert min(m.line or 0 for m in vc) == 66 + offset


def test_it_sums_per_thread_results_per_target() -> None:
    text = PKB.read_text()
    parts = text.split(r"<Path>C:\scratch\testfile.dat</Path>")
    # threads 2 and 3 (the 4th and 5th mentions: one is in the profile) use a second file
    text = (
        r"<Path>C:\scratch\testfile.dat</Path>".join(parts[:4])
        + r"<Path>D:\two.dat</Path>"
        + r"<Path>D:\two.dat</Path>".join(parts[4:])
    )
    got = _values(_parse(XMLP, text.encode()))
    assert got[(r"C:\scratch\testfile.dat", "read.ios")] == 22645 + 22623
    assert got[(r"D:\two.dat", "read.ios")] == 22548 + 23154
    assert got[("", "read.ios")] == 90970
    assert got[(r"D:\two.dat", "read.iops")] == pytest.approx((22548 + 23154) / 30.02)
    assert got[(r"D:\two.dat", "read.bytes")] == 1477705728 + 1517420544


def test_an_xml_without_results_or_interrupted_fails_clearly() -> None:
    text = PKB.read_text()
    no_results = text[: text.index("   <TimeSpan>\n      <TestTimeSeconds>")] + "</Results>\n"
    failure = _error(XMLP, no_results.encode())
    assert failure.message == "no results found (truncated?)"
    interrupted = (
        text[: text.index("   <TimeSpan>\n      <TestTimeSeconds>")]
        + "<TimeSpan>\n<Error>The test was interrupted before the measurements began.</Error>\n</TimeSpan>\n</Results>"
    )
    assert "interrupted" in _error(XMLP, interrupted.encode()).message


@pytest.mark.parametrize("fraction", [0.1, 0.5, 0.97])
def test_a_truncated_xml_fails_with_the_parsers_position(fraction: float) -> None:
    raw = VC_XML.read_bytes()
    cut = raw[: int(len(raw) * fraction)]
    failure = _error(XMLP, cut)
    assert "truncated?" in failure.message
    assert failure.line == cut.count(b"\n") + 1
    assert failure.column is not None


def test_an_xml_syntax_error_is_located() -> None:
    text = PKB.read_text()
    broken = text.replace("</TestTimeSeconds>", "</TestTimeSecond>", 1)
    failure = _error(XMLP, broken.encode())
    lines = broken.splitlines()
    line = next(i for i, row in enumerate(lines, start=1) if "</TestTimeSecond>" in row)
    assert (failure.line, failure.column) == (line, lines[line - 1].index("</TestTimeSecond>") + 3)
    assert "mismatched tag" in failure.message


def test_xml_entity_declarations_are_refused() -> None:
    laughs = (
        '<?xml version="1.0"?>\n<!DOCTYPE Results [\n <!ENTITY lol "lol">\n'
        ' <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">\n]>\n'
        "<Results><System><ComputerName>&lol2;</ComputerName></System></Results>\n"
    )
    failure = _error(XMLP, laughs.encode())
    assert (failure.line, failure.column) == (2, 1)
    assert "DOCTYPE" in failure.message


def test_a_non_number_in_the_xml_is_located() -> None:
    text = PKB.read_text().replace("<ReadCount>22623</ReadCount>", "<ReadCount>lots</ReadCount>")
    failure = _error(XMLP, text.encode())
    assert "<ReadCount> should be a whole number" in failure.message
    assert failure.line == next(i for i, row in enumerate(text.splitlines(), start=1) if "lots" in row)
    missing = PKB.read_text().replace("<WriteCount>0</WriteCount>", "", 1)
    failure = _error(XMLP, missing.encode())
    assert failure.message == "<Target> has no <WriteCount>"
    negative = PKB.read_text().replace("<ReadCount>22623</ReadCount>", "<ReadCount>-5</ReadCount>")
    assert "<ReadCount> should be a whole number" in _error(XMLP, negative.encode()).message
    infinite = PKB.read_text().replace("<TestTimeSeconds>30.02", "<TestTimeSeconds>inf")
    assert "<TestTimeSeconds> should be a number" in _error(XMLP, infinite.encode()).message


def test_another_root_element_is_not_diskspd() -> None:
    failure = _error(XMLP, b'<?xml version="1.0"?>\n<Report><System/></Report>\n')
    assert "<Report>" in failure.message
    assert failure.line == 2
    assert _error(XMLP, b"no xml here\n").message.startswith("not DiskSpd XML output")

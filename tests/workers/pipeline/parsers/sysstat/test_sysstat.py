"""sysstat's own sadf output (JSON and CSV of one recording) read into perfmon-named series, value for value."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.paths import FIXTURES
from workers.pipeline.decode import decode
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.registry import detect_parser
from workers.pipeline.records import Parsed

SYSSTAT = FIXTURES / "sysstat"
JSON = SYSSTAT / "sysstat-tests_sadf-j_A.json"
CSV = SYSSTAT / "sysstat-tests_sadf-d_A.csv"
NEW_YORK = SYSSTAT / "sysstat-tests_sadf-d_T_NewYork.csv"

# The five statistics of the recording, in UTC ("tz": "UTC" / "... UTC").
TIMES = [
    datetime(2019, 4, 18, 13, 20, 19, tzinfo=UTC),
    datetime(2019, 4, 18, 13, 20, 29, tzinfo=UTC),
    datetime(2019, 4, 18, 13, 20, 39, tzinfo=UTC),
    datetime(2019, 4, 18, 13, 20, 49, tzinfo=UTC),
    datetime(2019, 4, 18, 13, 54, 35, tzinfo=UTC),
]


def parse(path: Path, timezone: str | None = None) -> Parsed:
    decoded = decode(lambda: path.open("rb"))
    parser = detect_parser(decoded.head_bytes, decoded.head_text)
    assert parser.name == "sysstat"
    return parser.parse(decoded, ParseContext(filename=path.name, timezone=timezone))


def series(parsed: Parsed) -> dict[tuple[str, str, str, str], list[float | None]]:
    assert parsed.counters is not None
    columns = parsed.counters.columns
    rows = list(parsed.counters.rows)
    assert [row.time for row in rows] == TIMES
    return {
        (c.host, c.object, c.instance, c.counter): [None if r.values[i] is None else float(r.values[i]) for r in rows]
        for i, c in enumerate(columns)
    }


@pytest.mark.parametrize("path", [JSON, CSV], ids=["sadf-j", "sadf-d"])
def test_sysstat_figures_become_perfmon_counters_with_the_files_values(path: Path) -> None:
    found = series(parse(path))
    host = "SYSSTAT.TEST"
    # cpu "all" idle 82.88, 95.31, 71.68, 75.90, 73.34 -> % Processor Time = 100 - idle
    assert found[(host, "Processor", "_Total", "% Processor Time")] == [17.12, 4.69, 28.32, 24.10, 26.66]
    assert found[(host, "Processor", "_Total", "% User Time")] == [2.15, 2.28, 2.67, 6.21, 2.67]
    assert found[(host, "Processor", "0", "% Processor Time")][0] == pytest.approx(100 - 94.14)
    # memory avail 4389516 kB -> 4389516 / 1024 MB
    assert found[(host, "Memory", "", "Available MBytes")] == [pytest.approx(4389516 / 1024)] * 5
    # sda in the third sample: tps 1604.70, rkB 41499.97, wkB 10663.48, await 12.00 ms, aqu-sz 18.56
    sda = {counter: values[2] for (_, obj, inst, counter), values in found.items() if (obj, inst) == ("PhysicalDisk", "sda")}
    assert sda["Disk Transfers/sec"] == 1604.70
    assert sda["Disk Read Bytes/sec"] == pytest.approx(41499.97 * 1024)
    assert sda["Disk Write Bytes/sec"] == pytest.approx(10663.48 * 1024)
    assert sda["Disk Bytes/sec"] == pytest.approx((41499.97 + 10663.48) * 1024)
    assert sda["Avg. Disk sec/Transfer"] == 0.012
    assert sda["Avg. Disk Queue Length"] == 18.56
    assert sda["% Idle Time"] == pytest.approx(100 - 85.36)
    # wlp5s0 first sample: rxkB 0.31, txkB 0.09
    assert found[(host, "Network Interface", "wlp5s0", "Bytes Total/sec")][0] == pytest.approx(0.40 * 1024)
    assert found[(host, "System", "", "Load Average 1 min")] == [3.16] * 5
    # io (sar -b) bread 57.43 blocks/s of 512 bytes -> PhysicalDisk(_Total)
    assert found[(host, "PhysicalDisk", "_Total", "Disk Read Bytes/sec")][0] == pytest.approx(57.43 * 512)


def test_the_json_and_the_csv_of_one_recording_give_the_same_series() -> None:
    assert series(parse(JSON)) == series(parse(CSV))


def test_series_keep_the_sysstat_field_they_came_from() -> None:
    parsed = parse(JSON)
    assert parsed.counters is not None
    sources = {(c.object, c.instance, c.counter): c.source_path for c in parsed.counters.columns}
    assert sources[("Processor", "_Total", "% Processor Time")] == "sysstat 100 - cpu(all) idle"
    assert sources[("PhysicalDisk", "sda", "Avg. Disk sec/Transfer")] == "sysstat disk(sda) await / 1000"
    assert sources[("Memory", "", "Available MBytes")] == "sysstat memory avail / 1024"


def test_local_times_need_the_uploads_zone_and_are_converted_with_its_rules() -> None:
    # sadf -T under TZ=America/New_York labels 09:20:19 on 2019-04-18 "EST", but that day is EDT (UTC-4).
    with pytest.raises(ParseError, match="labelled 'EST'"):
        parse(NEW_YORK)
    parsed = parse(NEW_YORK, timezone="America/New_York")
    assert parsed.counters is not None
    assert [row.time for row in parsed.counters.rows] == TIMES[:2]


def test_sysstat_output_is_detected_by_content_not_by_name() -> None:
    for path in (JSON, CSV):
        decoded = decode(lambda path=path: path.open("rb"))
        assert detect_parser(decoded.head_bytes, decoded.head_text).detect(decoded.head_bytes, decoded.head_text) == 95
    perfmon = FIXTURES / "perfmon_csv" / "narmadha_DataCollector01_LogicalDisk_IST.csv"
    decoded = decode(lambda: perfmon.open("rb"))
    assert detect_parser(decoded.head_bytes, decoded.head_text).name == "perfmon_csv"

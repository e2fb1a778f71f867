"""sysstat's own sadf output (JSON and CSV of one recording) read into perfmon-named series, value for value."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.paths import FIXTURES, real_fixture
from workers.pipeline.decode import Decoded, decode
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.records import Parsed
from workers.pipeline.registry import detect_parser

# Under the shared real fixtures (tests skip when a checkout's shared folder predates them).
JSON = "sysstat/sysstat-tests_sadf-j_A.json"
CSV = "sysstat/sysstat-tests_sadf-d_A.csv"
NEW_YORK = "sysstat/sysstat-tests_sadf-d_T_NewYork.csv"

# The five statistics of the recording, in UTC ("tz": "UTC" / "... UTC").
TIMES = [
    datetime(2019, 4, 18, 13, 20, 19, tzinfo=UTC),
    datetime(2019, 4, 18, 13, 20, 29, tzinfo=UTC),
    datetime(2019, 4, 18, 13, 20, 39, tzinfo=UTC),
    datetime(2019, 4, 18, 13, 20, 49, tzinfo=UTC),
    datetime(2019, 4, 18, 13, 54, 35, tzinfo=UTC),
]


def opened(path: Path) -> Decoded:
    return decode(lambda: path.open("rb"))


def parse(relpath: str, timezone: str | None = None) -> Parsed:
    path = real_fixture(relpath)
    decoded = opened(path)
    parser = detect_parser(decoded.head_bytes, decoded.head_text)
    assert parser.name == "sysstat"
    return parser.parse(decoded, ParseContext(filename=path.name, timezone=timezone))


def series(parsed: Parsed) -> dict[tuple[str, str, str, str], list[float | None]]:
    assert parsed.counters is not None
    columns = parsed.counters.columns
    rows = list(parsed.counters.rows)
    assert [row.time for row in rows] == TIMES
    return {
        (c.host, c.object, c.instance, c.counter): [
            None if (value := r.values[i]) is None else float(value) for r in rows
        ]
        for i, c in enumerate(columns)
    }


@pytest.mark.parametrize("relpath", [JSON, CSV], ids=["sadf-j", "sadf-d"])
def test_sysstat_figures_become_perfmon_counters_with_the_files_values(relpath: str) -> None:
    found = series(parse(relpath))
    host = "SYSSTAT.TEST"
    # cpu "all" idle 82.88, 95.31, 71.68, 75.90, 73.34 -> % Processor Time = 100 - idle
    assert found[(host, "Processor", "_Total", "% Processor Time")] == [17.12, 4.69, 28.32, 24.10, 26.66]
    assert found[(host, "Processor", "_Total", "% User Time")] == [2.15, 2.28, 2.67, 6.21, 2.67]
    assert found[(host, "Processor", "0", "% Processor Time")][0] == pytest.approx(100 - 94.14)
    # memory avail 4389516 kB -> 4389516 / 1024 MB
    assert found[(host, "Memory", "", "Available MBytes")] == [pytest.approx(4389516 / 1024)] * 5
    # sda in the third sample: tps 1604.70, rkB 41499.97, wkB 10663.48, await 12.00 ms, aqu-sz 18.56
    sda = {
        counter: values[2]
        for (_, obj, inst, counter), values in found.items()
        if (obj, inst) == ("PhysicalDisk", "sda")
    }
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
    for relpath in (JSON, CSV):
        decoded = opened(real_fixture(relpath))
        assert (
            detect_parser(decoded.head_bytes, decoded.head_text).detect(decoded.head_bytes, decoded.head_text)
            == 95
        )
    perfmon = FIXTURES / "perfmon_csv" / "narmadha_DataCollector01_LogicalDisk_IST.csv"
    decoded = opened(perfmon)
    assert detect_parser(decoded.head_bytes, decoded.head_text).name == "perfmon_csv"

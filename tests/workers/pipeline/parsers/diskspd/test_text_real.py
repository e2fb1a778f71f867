"""The DiskSpd text parser on every real report, checked against the report's own tables.

Expected numbers are read here from the files themselves -- the ``total:``
rows, thread rows, percentile and CPU tables with plain string splitting --
and the headline ones are also written out literally after checking them by
hand.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.workers.pipeline.parsers.diskspd.helpers import (
    AZURE,
    ESCAPED,
    LENOVO,
    MANY,
    MIB_TO_MB,
    NO_COMMAND,
    STARTED_UTC,
    TEXT_FILES,
    TEXT_POINTS,
    V220,
    _decoded,
    _read_text,
    _text,
    _values,
)


def _number(cell: str) -> float | None:
    return None if cell.strip() == "N/A" else float(cell)


@dataclass
class _IoTable:
    rows: list[dict[str, str]]
    total: dict[str, str]


def _io_tables(text: str) -> dict[str, _IoTable]:
    """The Total / Read / Write IO tables of a one-run report, cells by column name."""
    lines = text.splitlines()
    tables = {}
    for title in ("Total IO", "Read IO", "Write IO"):
        start = next(i for i, line in enumerate(lines) if line.strip() == title)
        columns = [cell.strip().lower() for cell in lines[start + 1].split("|")]
        rows = []
        index = start + 3
        while not lines[index].startswith("---"):
            rows.append(dict(zip(columns, (cell.strip() for cell in lines[index].split("|")), strict=True)))
            index += 1
        cells = [cell.strip() for cell in lines[index + 1].split("total:", 1)[1].split("|")]
        names = [name for name in columns if name not in ("thread", "file")]
        tables[title] = _IoTable(rows, dict(zip(names, cells, strict=True)))
    return tables


def _latency_tables(text: str) -> dict[str, dict[str, list[str]]]:
    """Every ``%-ile`` table by the line above it ("" for the all-target one): label -> [read, write, total]."""
    lines = text.splitlines()
    tables: dict[str, dict[str, list[str]]] = {}
    for index, line in enumerate(lines):
        if not line.strip().startswith("%-ile"):
            continue
        above = lines[index - 1].strip()
        key = "" if above in ("", "total:") or "latency distribution" in above.lower() else above
        rows: dict[str, list[str]] = {}
        for row in lines[index + 2 :]:
            if "|" not in row:
                break
            label, *cells = (cell.strip() for cell in row.split("|"))
            rows[label] = cells
        tables[key] = rows
    return tables


def _cpu_average(text: str) -> list[float]:
    line = next(line for line in text.splitlines() if "avg." in line and "|" in line)
    return [float(cell.strip().rstrip("%")) for cell in line.split("|")[-4:]]


def _subject(file_cell: str) -> str:
    path = re.sub(r"\s*\([^()]*\)$", "", file_cell)
    return path.replace("\\\\", "\\") if re.match(r"^[A-Za-z]:\\\\", path) else path


def _test_time(text: str) -> float:
    found = re.search(r"actual test time:\s*([\d.]+)s", text)
    assert found
    return float(found.group(1))


def _rate_tolerance(printed: float, seconds: float) -> float:
    """A 2-decimal figure is off by up to 0.005; 'actual test time' itself is rounded to 0.01 s."""
    return 0.0051 + abs(printed) * 0.0051 / seconds


@pytest.mark.parametrize("path", TEXT_FILES, ids=lambda p: p.name)
def test_it_reads_every_real_text_report_totals_as_the_file_prints_them(path: Path) -> None:
    text = _read_text(path)
    tables = _io_tables(text)
    seconds = _test_time(text)
    got = _values(_text(path))
    for title, direction in (("Total IO", "total"), ("Read IO", "read"), ("Write IO", "write")):
        total = tables[title].total
        rate_column = "mib/s" if "mib/s" in total else "mb/s"  # both are 2^20 bytes per second
        assert got[("", f"{direction}.bytes")] == int(total["bytes"])
        assert got[("", f"{direction}.ios")] == int(total["i/os"])
        # the rates as printed (MiB/s converted exactly to decimal MB/s), not recomputed
        assert got[("", f"{direction}.iops")] == float(total["i/o per s"])
        assert got[("", f"{direction}.mbps")] == pytest.approx(
            float(total[rate_column]) * MIB_TO_MB, rel=1e-12
        )
        # and consistent with the byte count over the measured time
        exact = int(total["bytes"]) / seconds / 1e6
        assert got[("", f"{direction}.mbps")] == pytest.approx(
            exact, abs=0.0051 * MIB_TO_MB + exact * 0.0051 / seconds
        )
        if int(total["i/os"]) > 0 and "avglat" in total:
            assert got[("", f"{direction}.latency.avg_ms")] == float(total["avglat"])
            assert got[("", f"{direction}.latency.stddev_ms")] == _number(total["latstddev"])
        else:
            assert ("", f"{direction}.latency.avg_ms") not in got
        if "iopsstddev" in total:
            assert got[("", f"{direction}.iops_stddev")] == float(total["iopsstddev"])


@pytest.mark.parametrize("path", TEXT_FILES, ids=lambda p: p.name)
def test_it_sums_every_real_text_reports_thread_rows_per_target(path: Path) -> None:
    text = _read_text(path)
    seconds = _test_time(text)
    got = _values(_text(path))
    for title, direction in (("Total IO", "total"), ("Read IO", "read"), ("Write IO", "write")):
        per_target: dict[str, list[dict[str, str]]] = defaultdict(list)
        for row in _io_tables(text)[title].rows:
            per_target[_subject(row["file"])].append(row)
        assert {subject for subject, _ in got} == {"", *per_target}
        for subject, rows in per_target.items():
            assert got[(subject, f"{direction}.bytes")] == sum(int(row["bytes"]) for row in rows)
            assert got[(subject, f"{direction}.ios")] == sum(int(row["i/os"]) for row in rows)
            iops = sum(float(row["i/o per s"]) for row in rows)
            assert got[(subject, f"{direction}.iops")] == pytest.approx(
                iops, abs=len(rows) * _rate_tolerance(iops / len(rows), seconds)
            )
            ios = sum(int(row["i/os"]) for row in rows)
            if ios and "avglat" in rows[0]:
                weighted = sum(float(row["avglat"]) * int(row["i/os"]) for row in rows) / ios
                assert got[(subject, f"{direction}.latency.avg_ms")] == pytest.approx(weighted, abs=0.001)


@pytest.mark.parametrize("path", TEXT_FILES, ids=lambda p: p.name)
def test_it_reads_every_real_text_reports_percentiles_cpu_and_parameters(path: Path) -> None:
    text = _read_text(path)
    parsed = _text(path)
    got = _values(parsed)
    for heading, rows in _latency_tables(text).items():
        subject = _subject(heading.rstrip(":"))
        assert list(rows) == ["min", "25th", "50th", "75th", "90th", "95th", "99th"] + [
            f"{n}-nines" for n in range(3, 10)
        ] + ["max"]
        for label, name in zip(rows, TEXT_POINTS, strict=True):
            for direction, cell in zip(("read", "write", "total"), rows[label], strict=True):
                key = (subject, f"{direction}.latency.{name}_ms")
                if cell == "N/A":
                    assert key not in got
                else:
                    assert got[key] == float(cell)
    usage, user, kernel, idle = _cpu_average(text)
    assert (got[("", "cpu.usage_pct")], got[("", "cpu.user_pct")]) == (usage, user)
    assert (got[("", "cpu.kernel_pct")], got[("", "cpu.idle_pct")]) == (kernel, idle)
    block = re.search(r"block size:\s*(\d+)(KiB)?", text)
    assert block
    assert parsed.run_attributes["block_size"] == str(int(block.group(1)) * (1024 if block.group(2) else 1))
    threads = re.search(r"thread count:\s*(\d+)", text)
    assert threads
    assert parsed.run_attributes["threads"] == threads.group(1)
    start = re.search(r"start time:\s*(\S+ \S+) UTC", text)
    expected = (
        datetime.strptime(start.group(1), "%Y/%m/%d %H:%M:%S").replace(tzinfo=UTC) if start else STARTED_UTC
    )
    assert {item.time for item in parsed.measurements} == {expected}
    assert {item.repetition for item in parsed.measurements} == {1}
    # one execution: every figure carries its parameters, which are also the run's attributes
    assert {tuple(sorted((item.params or {}).items())) for item in parsed.measurements} == {
        tuple(sorted((key, parsed.run_attributes[key]) for key in parsed.measurements[0].params or {}))
    }
    assert parsed.measurements[0].params
    assert parsed.tool == "diskspd"
    assert parsed.parser == "diskspd_text"


HEADLINES = {
    # file: (total bytes, total IOPS, total MiB/s as printed, total p99 ms, CPU usage %, block, threads)
    AZURE.name: (992047104, 403.66, 1.58, 824.992, 3.71, "4096", "2"),
    LENOVO.name: (538320896, 219.04, 0.86, 1088.947, 3.39, "4096", "2"),
    ESCAPED.name: (563719340032, 76458.71, 597.33, 57.658, 6.15, "8192", "32"),
    NO_COMMAND.name: (146169856, 1189.03, 4.64, 4.713, 0.82, "4096", "1"),
    V220.name: (20819968, 508.09, 1.98, 161.752, 1.13, "4096", "4"),
    MANY.name: (162301329408, 330118.77, 2579.05, 368.150, 39.69, "8192", "115"),
}


@pytest.mark.parametrize("path", TEXT_FILES, ids=lambda p: p.name)
def test_it_gives_the_headline_numbers_checked_by_hand(path: Path) -> None:
    nbytes, iops, mib, p99, cpu, block, threads = HEADLINES[path.name]
    parsed = _text(path)
    got = _values(parsed)
    seconds = _test_time(_read_text(path))
    assert got[("", "total.bytes")] == nbytes
    assert got[("", "total.iops")] == pytest.approx(iops, abs=_rate_tolerance(iops, seconds))
    assert got[("", "total.mbps")] == pytest.approx(mib * MIB_TO_MB, abs=0.0055 * MIB_TO_MB + mib * 1e-4)
    assert got[("", "total.latency.p99_ms")] == p99
    assert got[("", "cpu.usage_pct")] == cpu
    assert parsed.run_attributes["block_size"] == block
    assert parsed.run_attributes["threads"] == threads


def test_it_reads_the_full_parameter_set_of_each_layout() -> None:
    common = {"software_cache": "disabled", "write_through": "true", "random": "true", "targets": "1"}
    assert _text(AZURE).run_attributes == {
        **common,
        "block_size": "4096",
        "threads": "2",
        "outstanding_io": "32",
        "write_pct": "50",
        "duration_s": "600",
        "warmup_s": "5",
        "command_line": r"C:\Diskspd\amd64fre\diskspd.exe -w50 -W5 -b4K -c8G -F2 -o32 -Sh -L -r -d600 C:\testfile.foo",
        "target": r"C:\testfile.foo",
    }
    v220 = _text(V220).run_attributes
    assert {k: v220[k] for k in ("block_size", "threads", "outstanding_io", "write_pct", "duration_s")} == {
        "block_size": "4096",
        "threads": "4",
        "outstanding_io": "16",
        "write_pct": "100",
        "duration_s": "10",
    }
    assert v220["warmup_s"] == "5"
    many = _text(MANY).run_attributes
    assert many["targets"] == "5"
    assert many["target"] == ",".join(rf"{drive}:\diskspd-test.dat" for drive in "EFGHI")
    assert many["outstanding_io"] == "22"
    assert many["threads"] == "115"
    no_command = _text(NO_COMMAND).run_attributes
    assert "command_line" not in no_command
    assert no_command["write_pct"] == "30"
    assert no_command["warmup_s"] == "15"


def test_it_joins_the_command_line_a_console_wrapped_at_80_columns() -> None:
    parsed = _text(LENOVO)
    assert parsed.run_attributes["command_line"] == (
        r"diskspd -w50 -W5 -b4K -c8G -F2 -o32 -Sh -L -r -d600 C:\testfile.foo"
    )
    # The cp1251 msinfo32 dump above the report is free text.
    assert _decoded(LENOVO).encoding == "cp1251"


def test_it_undoes_doubled_backslashes_of_an_escaped_capture() -> None:
    parsed = _text(ESCAPED)
    assert {item.subject for item in parsed.measurements} == {"", r"D:\diskspd-test.dat"}
    assert parsed.run_attributes["threads"] == "32"


def test_it_reports_five_targets_with_their_own_percentiles() -> None:
    got = _values(_text(MANY))
    targets = sorted({subject for subject, _ in got if subject})
    assert targets == [rf"{drive}:\diskspd-test.dat" for drive in "EFGHI"]
    assert sum(got[(t, "total.ios")] for t in targets) == got[("", "total.ios")] == 19812174
    assert sum(got[(t, "total.bytes")] for t in targets) == got[("", "total.bytes")]
    # the per-target tables, checked by hand
    assert got[(r"E:\diskspd-test.dat", "write.latency.p50_ms")] == 1.003
    assert got[(r"F:\diskspd-test.dat", "total.latency.min_ms")] == 350.085
    assert got[(r"I:\diskspd-test.dat", "total.latency.max_ms")] == 3134.107
    assert got[("", "total.latency.p50_ms")] == 1.520
    # a stddev cannot be recombined from 23 rounded thread rows
    assert (r"E:\diskspd-test.dat", "total.latency.stddev_ms") not in got
    assert got[("", "total.latency.stddev_ms")] == 42.583
    assert got[("", "total.iops_stddev")] == 178867.92


def test_it_skips_na_cells_of_a_write_only_run() -> None:
    got = _values(_text(V220))
    assert got[("", "read.ios")] == 0
    assert got[("", "read.iops")] == 0
    assert ("", "read.latency.avg_ms") not in got
    assert ("", "read.latency.p50_ms") not in got
    assert got[("", "write.latency.p50_ms")] == 140.008
    assert got[("", "write.latency.max_ms")] == 164.312


def test_it_stores_mib_per_second_columns_as_decimal_megabytes() -> None:
    got = _values(_text(V220))
    # printed "1.98" MiB/s is 1.98 * 2^20 / 10^6 MB/s exactly
    assert got[("", "total.mbps")] == pytest.approx(1.98 * 1024 * 1024 / 1e6, rel=1e-12)
    # the old "MB/s" column is bytes / 2^20 too: 992,047,104 B in 600 s printed as 1.58
    azure = _values(_text(AZURE))
    assert azure[("", "total.mbps")] == pytest.approx(1.58 * MIB_TO_MB, rel=1e-12)
    assert round(992047104 / 600 / 2**20, 2) == 1.58


def test_it_stores_the_rates_a_report_printed_not_rates_recomputed_from_the_total() -> None:
    # The real 70/30 report with its counts scaled up, every figure as DiskSpd would print it for a
    # measured time of 30.012699 s. Recomputing the write rate over total I/Os / total "I/O per s"
    # (792001 / 26388.86 s) gives 25222.6538, which is not the printed 25222.66.
    text = NO_COMMAND.read_bytes()
    for old, new in (
        (b"146169856 |        35686 |       4.64 |    1189.03", b"3244036096 | 792001 | 103.08 | 26388.86"),
        (b"102645760 |        25060 |       3.26 |     834.98", b"143364096 | 35001 | 4.56 | 1166.21"),
        (b"43524096 |        10626 |       1.38 |     354.05", b"3100672000 | 757000 | 98.53 | 25222.66"),
    ):
        assert text.count(old) == 2  # the thread row and the total row
        text = text.replace(old, new)
    got = _values(_text(text))
    for subject in ("", "diskspd.dat"):
        assert got[(subject, "write.iops")] == 25222.66
        assert got[(subject, "read.iops")] == 1166.21
        assert got[(subject, "total.iops")] == 26388.86
        assert got[(subject, "write.mbps")] == pytest.approx(98.53 * MIB_TO_MB, rel=1e-12)
        assert got[(subject, "read.mbps")] == pytest.approx(4.56 * MIB_TO_MB, rel=1e-12)


def test_rates_of_a_target_served_by_several_threads_reproduce_every_printed_row() -> None:
    # Many threads write each of several files: a file's figures are derived from its summed
    # counts over one measured time, which must be one that reproduces every rate printed.
    text = _read_text(MANY)
    got = _values(_text(MANY))
    rows = _io_tables(text)["Write IO"].rows
    subject = _subject(rows[0]["file"])
    mine = [row for row in rows if _subject(row["file"]) == subject]
    assert len(mine) > 1
    nbytes = sum(int(row["bytes"]) for row in mine)
    ios = sum(int(row["i/os"]) for row in mine)
    seconds = ios / got[(subject, "write.iops")]
    assert nbytes / seconds / 1e6 == pytest.approx(got[(subject, "write.mbps")], rel=1e-9)
    for row in rows:
        assert round(int(row["i/os"]) / seconds, 2) == float(row["i/o per s"])
        assert round(int(row["bytes"]) / seconds / 2**20, 2) == float(row["mib/s"])
    assert round(seconds, 2) == 60.02  # "actual test time: 60.02s"


def test_every_measurement_has_a_unit_and_a_line() -> None:
    for path in TEXT_FILES:
        for item in _text(path).measurements:
            assert item.unit in {"IO/s", "MB/s", "B", "IO", "ms", "%"}
            assert item.line is not None and item.line > 0
    got = {(m.subject, m.metric): m.line or 0 for m in _text(NO_COMMAND).measurements}
    text = _read_text(NO_COMMAND).splitlines()
    assert text[got[("", "total.iops")] - 1].startswith("total:")
    assert "avg." in text[got[("", "cpu.usage_pct")] - 1]

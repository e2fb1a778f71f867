"""The DiskSpd text and XML parsers against the real sample files and variants broken on purpose.

Expected numbers are read here from the files themselves -- the text
report's ``total:`` rows, thread rows, percentile and CPU tables with plain
string splitting, the XML with ElementTree -- and the headline ones are also
written out literally after checking them by hand.
"""

from __future__ import annotations

import codecs
import io
import random
import re
import xml.etree.ElementTree as ET
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.paths import FIXTURES
from workers.pipeline.decode import Decoded, decode
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.diskspd import DiskSpdTextParser, DiskSpdXmlParser
from workers.pipeline.parsers.diskspd.text_lines import without_suffix
from workers.pipeline.records import Measurement, Parsed
from workers.pipeline.validate import validate

TXT = FIXTURES / "diskspd_txt"
XML = FIXTURES / "diskspd_xml"
AZURE = TXT / "basilkisel_azure_A2_single.txt"
LENOVO = TXT / "basilkisel_lenovo_cp1251_wrapped80.txt"
ESCAPED = TXT / "vc_DiskSpd_2.0.21_32threads_escapedpath.txt"
NO_COMMAND = TXT / "vc_DiskSpd_2.0.21_ReadWrite_noCmdLine.txt"
V220 = TXT / "vc_DiskSpd_2.2.0_SingleGroup.txt"
MANY = TXT / "vc_DiskSpd_Write8k_utf8bom_manythreads.txt"
PKB = XML / "pkb_diskspd_result_2.0.21a_nolatency_2018.xml"
VC_XML = XML / "vc_Results_DiskSpd_2.0.21a.xml"
TEXT_FILES = sorted(TXT.glob("*"))
XML_FILES = sorted(XML.glob("*"))

TEXT = DiskSpdTextParser()
XMLP = DiskSpdXmlParser()
STARTED = "2015-07-01T10:15:00+10:00"
STARTED_UTC = datetime(2015, 7, 1, 0, 15, tzinfo=UTC)
MIB_TO_MB = 1024 * 1024 / 1_000_000
NINES = ["p99_9", "p99_99", "p99_999", "p99_9999", "p99_99999", "p99_999999", "p99_9999999"]
TEXT_POINTS = ["min", "p25", "p50", "p75", "p90", "p95", "p99", *NINES, "max"]


# --------------------------------------------------------------------------
# helpers


def _decoded(source: Path | bytes, encoding: str | None = None) -> Decoded:
    if isinstance(source, Path):
        return decode(lambda: source.open("rb"), encoding=encoding)
    return decode(lambda: io.BytesIO(source), encoding=encoding)


def _parse(parser: Any, source: Path | bytes | Decoded, **context: Any) -> Parsed:
    decoded = source if isinstance(source, Decoded) else _decoded(source)
    parsed = parser.parse(decoded, ParseContext(**context))
    # The shared checks every parser's output must pass (plausible times, finite values).
    parsed = validate(parsed, max_columns=20_000)
    parsed.measurements = list(parsed.measurements)
    return parsed


def _text(source: Path | bytes, **extra: str) -> Parsed:
    return _parse(TEXT, source, extra={"started_at": STARTED, **extra})


def _values(parsed: Parsed) -> dict[tuple[str, str], float]:
    found: dict[tuple[str, str], float] = {}
    for item in parsed.measurements:
        key = (item.subject, item.metric)
        assert key not in found, f"{key} twice in a one-run file"
        found[key] = item.value
    return found


def _error(parser: Any, source: Path | bytes | Decoded, **context: Any) -> ParseError:
    with pytest.raises(ParseError) as info:
        _parse(parser, source, **context)
    assert info.value.parser == parser.name
    assert info.value.line is not None
    return info.value


def _read_text(path: Path) -> str:
    decoded = _decoded(path)
    with decoded.open_text() as stream:
        return stream.read()


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


# --------------------------------------------------------------------------
# Text reports: every real file, checked against its own tables


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


# --------------------------------------------------------------------------
# Times


def test_it_needs_started_at_when_the_report_records_no_time() -> None:
    failure = _error(TEXT, AZURE)
    assert "started_at" in failure.message
    assert "no start time" in failure.message
    naive = _error(TEXT, AZURE, extra={"started_at": "2015-07-01T10:15:00"})
    assert "no UTC offset" in naive.message
    parsed = _parse(TEXT, AZURE, extra={"started_at": "2015-07-01T10:15:00"}, timezone="Australia/Melbourne")
    assert {item.time for item in parsed.measurements} == {STARTED_UTC}
    bad = _error(TEXT, AZURE, extra={"started_at": "yesterday"})
    assert "ISO 8601" in bad.message


def test_the_files_own_start_time_wins_over_started_at() -> None:
    parsed = _text(NO_COMMAND)
    assert {item.time for item in parsed.measurements} == {datetime(2021, 4, 16, 19, 3, 38, tzinfo=UTC)}


def test_an_implausible_recorded_time_falls_back_to_started_at() -> None:
    raw = NO_COMMAND.read_bytes().replace(b"2021/04/16 19:03:38", b"1601/01/01 00:00:00")
    assert {item.time for item in _text(raw).measurements} == {STARTED_UTC}
    failure = _error(TEXT, raw)
    assert "implausible" in failure.message


# --------------------------------------------------------------------------
# Layout variations


def _hard_wrap(text: str, width: int) -> str:
    out = []
    for line in text.splitlines():
        out.extend([line[i : i + width] for i in range(0, len(line), width)] or [""])
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("path", TEXT_FILES, ids=lambda p: p.name)
@pytest.mark.parametrize("width", [80, 79, 100])
def test_it_reads_a_report_a_console_wrapped_anywhere(path: Path, width: int) -> None:
    original = _text(path)
    wrapped = _text(_hard_wrap(_read_text(path), width).encode("utf-8"))
    assert _values(wrapped) == _values(original)
    assert wrapped.run_attributes == original.run_attributes


def test_tabs_and_spaces_are_alike() -> None:
    text = _read_text(V220)
    spaced = text.replace("\t", "    ").encode()
    assert _values(_text(spaced)) == _values(_text(V220))
    tabbed = re.sub(r"(?m)^ {8}", "\t", _read_text(NO_COMMAND)).encode()
    assert _values(_text(tabbed)) == _values(_text(NO_COMMAND))
    assert _text(tabbed).run_attributes == _text(NO_COMMAND).run_attributes


@pytest.mark.parametrize("path", [AZURE, NO_COMMAND, V220], ids=lambda p: p.name)
def test_it_detects_and_reads_crlf_utf16_and_bom_encodings_alike(path: Path) -> None:
    text = _read_text(path)
    expected = _values(_text(path))
    crlf = text.replace("\n", "\r\n")
    for raw in (
        codecs.BOM_UTF16_LE + crlf.encode("utf-16-le"),
        codecs.BOM_UTF8 + crlf.encode(),
        crlf.encode(),
    ):
        decoded = _decoded(raw)
        assert TEXT.detect(decoded.head_bytes, decoded.head_text) == 90
        assert _values(_text(raw)) == expected
    bare = text[text.index("Input parameters:") :].replace("\n", "\r\n")
    if "Command Line:" in bare:
        return
    decoded = _decoded(bare.encode())  # no command line: "Input parameters:" + "Total IO" decide
    assert TEXT.detect(decoded.head_bytes, decoded.head_text) == 90


def test_it_falls_back_to_the_command_line_without_input_parameters() -> None:
    text = _read_text(AZURE)
    start, end = text.index("Input parameters:"), text.index("Results for timespan")
    cut = (text[:start] + text[end:]).encode()
    assert _text(cut).run_attributes == _text(AZURE).run_attributes
    assert _values(_text(cut)) == _values(_text(AZURE))


def test_it_keeps_what_it_can_know_without_command_line_or_input_parameters() -> None:
    text = _read_text(AZURE)
    bare = text[text.index("Results for timespan") :].encode()
    parsed = _text(bare)
    # block size from bytes / I/Os, threads from the results
    assert parsed.run_attributes == {"block_size": "4096", "threads": "2"}
    assert _values(parsed) == _values(_text(AZURE))
    # two bare results pasted one after the other: two runs of one parameter set, back to back
    twice = _text(bare + b"\n" + bare)
    assert {(m.repetition, m.time) for m in twice.measurements} == {
        (1, STARTED_UTC),
        (2, STARTED_UTC + timedelta(seconds=600)),
    }
    assert len({tuple(sorted((m.params or {}).items())) for m in twice.measurements}) == 1


def test_it_reads_appended_runs_each_with_its_own_parameters() -> None:
    raw = AZURE.read_bytes() + b"\r\nPS C:\\> next\r\n" + V220.read_bytes() + AZURE.read_bytes()
    parsed = _text(raw)
    runs: dict[tuple[Any, ...], list[Measurement]] = defaultdict(list)
    for item in parsed.measurements:
        assert item.params is not None
        runs[(item.time, item.repetition, tuple(sorted(item.params.items())))].append(item)
    assert len(runs) == 3
    times = sorted(runs, key=lambda key: key[0])
    # the first Azure run at started_at; the 2.2.0 run at its own start time; the second
    # Azure run after the first two (605 s + 15 s), as repetition 2 of the same parameters
    assert [key[0] for key in times] == [
        STARTED_UTC,
        STARTED_UTC + timedelta(seconds=620),
        datetime(2026, 6, 22, 22, 16, 45, tzinfo=UTC),
    ]
    assert [key[1] for key in times] == [1, 2, 1]
    by_run = {key: {(m.subject, m.metric): m.value for m in items} for key, items in runs.items()}
    assert by_run[times[0]] == by_run[times[1]] == _values(_text(AZURE))
    assert by_run[times[2]] == _values(_text(V220))
    assert dict(times[2][2])["threads"] == "4"
    assert "command_line" not in parsed.run_attributes  # two different command lines


def test_it_reads_a_profile_with_two_timespans() -> None:
    text = _read_text(NO_COMMAND)
    system = text.index("System information:")
    timespan = text[text.index("        timespan:   1") : system]
    second = timespan.replace("timespan:   1", "timespan:   2").replace(
        "block size: 4096", "block size: 8192"
    )
    results = text[text.index("Results for timespan 1:") :]
    raw = (
        text[:system] + second + text[system:] + "\n" + results.replace("timespan 1:", "timespan 2:")
    ).encode()
    parsed = _text(raw)
    runs: dict[tuple[datetime, str], dict[tuple[str, str], float]] = defaultdict(dict)
    for item in parsed.measurements:
        assert item.params is not None
        runs[(item.time, item.params["block_size"])][(item.subject, item.metric)] = item.value
    start = datetime(2021, 4, 16, 19, 3, 38, tzinfo=UTC)
    # timespan 2 starts after timespan 1's 15 s warm-up and 30.01 s test
    assert sorted(runs) == [(start, "4096"), (start + timedelta(seconds=45.01), "8192")]
    assert runs[(start, "4096")] == _values(_text(NO_COMMAND))


def test_an_interrupted_test_has_no_results() -> None:
    text = _read_text(NO_COMMAND)
    cut = text[: text.index("actual test time")]
    raw = (
        cut + "The test was interrupted before the measurements began. No results are displayed.\n"
    ).encode()
    failure = _error(TEXT, raw, extra={"started_at": STARTED})
    assert "interrupted" in failure.message


# --------------------------------------------------------------------------
# Text reports broken on purpose


def _cut_before(path: Path, marker: str, occurrence: int = 1, keep: int = 0) -> bytes:
    text = _read_text(path)
    index = -1
    for _ in range(occurrence):
        index = text.index(marker, index + 1)
    return text[: index + keep].encode()


@pytest.mark.parametrize(
    ("marker", "occurrence", "keep", "missing"),
    [
        ("thread |", 1, 0, "Total IO table"),  # right after the "Total IO" title
        ("     1 |", 2, 0, "end of the Read IO table"),  # between two thread rows
        ("total:", 2, 0, "'total:' row of the Read IO table"),
        ("Write IO", 1, 0, "Write IO table"),
        ("total:", 3, 12, "end of the 'total:' row"),  # inside the total row's numbers
        ("max |", 1, 0, "'max' row of the latency table"),  # inside the percentile table
        ("  %-ile", 1, 0, "latency percentiles"),  # latency was measured, its table is gone
    ],
)
def test_a_report_truncated_mid_run_fails_clearly(
    marker: str, occurrence: int, keep: int, missing: str
) -> None:
    raw = _cut_before(AZURE, marker, occurrence, keep)
    failure = _error(TEXT, raw, extra={"started_at": STARTED})
    assert "truncated?" in failure.message
    assert missing in failure.message
    assert "timespan 1 (line 32)" in failure.message


def test_a_report_truncated_before_any_result_says_so() -> None:
    raw = _cut_before(NO_COMMAND, "Results for timespan")
    failure = _error(TEXT, raw)
    assert failure.message == "no results found (truncated?)"
    assert failure.line == raw.decode().count("\n")


def test_a_bad_number_is_located_to_its_cell() -> None:
    text = _read_text(NO_COMMAND)
    broken = text.replace("35686 |       4.64", "3568x |       4.64", 1)
    failure = _error(TEXT, broken.encode())
    line = broken.splitlines().index(next(row for row in broken.splitlines() if "3568x" in row)) + 1
    assert failure.line == line
    assert failure.column == broken.splitlines()[line - 1].index("3568x") + 1
    assert "I/Os" in failure.message


def test_a_wrongly_re_encoded_report_fails_clearly() -> None:
    # the cp1251 file read as UTF-8: the preamble does not decode
    failure = _error(TEXT, _decoded(LENOVO, encoding="utf-8"), extra={"started_at": STARTED})
    assert "not valid utf-8" in failure.message
    assert failure.line == 1  # the Russian preamble starts at once
    # one stray byte deep in an otherwise clean report: the line is the byte's, not the chunk's
    lines = NO_COMMAND.read_bytes().split(b"\n")
    lines[39] = lines[39] + b" \xff"
    stray = _error(TEXT, _decoded(b"\n".join(lines), encoding="utf-8"))
    assert stray.line == 40
    # a UTF-8 report read as UTF-16: nothing of DiskSpd is left
    mangled = _error(TEXT, _decoded(NO_COMMAND, encoding="utf-16-le"))
    assert "DiskSpd" in mangled.message or "utf-16" in mangled.message


def test_garbage_and_empty_files_fail_clearly() -> None:
    garbage = random.Random(7).randbytes(20_000)
    assert _error(TEXT, garbage).message
    assert _error(XMLP, garbage).message
    assert _error(TEXT, b"").message == "the file is empty"
    assert _error(XMLP, b"").message == "the file is empty"
    prose = _error(TEXT, b"Just some notes about a disk test.\r\nNothing else.\r\n")
    assert prose.message.startswith("not a DiskSpd text report")
    assert prose.line == 1


# --------------------------------------------------------------------------
# XML


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


def _mutations(raw: bytes, seed: int, count: int) -> list[bytes]:
    """Lines dropped, duplicated, swapped or cut short, and bytes flipped, reproducibly."""
    chance = random.Random(seed)
    lines = raw.split(b"\n")
    variants = []
    for _ in range(count):
        mutated = list(lines)
        kind = chance.randrange(5)
        at = chance.randrange(len(mutated))
        if kind == 0:
            del mutated[at]
        elif kind == 1:
            mutated.insert(at, mutated[at])
        elif kind == 2:
            other = chance.randrange(len(mutated))
            mutated[at], mutated[other] = mutated[other], mutated[at]
        elif kind == 3:
            mutated[at] = mutated[at][: chance.randrange(len(mutated[at]) + 1)]
        else:
            data = bytearray(b"\n".join(mutated))
            data[chance.randrange(len(data))] = chance.randrange(256)
            variants.append(bytes(data))
            continue
        variants.append(b"\n".join(mutated))
    return variants


@pytest.mark.parametrize("path", [*TEXT_FILES, *XML_FILES], ids=lambda p: p.name)
def test_mangled_files_parse_or_fail_with_a_parse_error_only(path: Path) -> None:
    parser = XMLP if path.suffix == ".xml" else TEXT
    failures: list[ParseError] = []
    for variant in _mutations(path.read_bytes(), seed=len(path.name), count=60):
        try:
            parsed = _parse(parser, variant, extra={"started_at": STARTED})
        except ParseError as caught:
            failures.append(caught)
            continue
        assert parsed.measurements
    assert failures  # some of the damage is always noticed
    for failure in failures:
        assert (failure.parser, bool(failure.message)) == (parser.name, True)
        assert failure.line is not None


# --------------------------------------------------------------------------
# Detection


def test_detect_picks_each_diskspd_layout() -> None:
    for path in TEXT_FILES:
        decoded = _decoded(path)
        assert TEXT.detect(decoded.head_bytes, decoded.head_text) == 90, path.name
        assert XMLP.detect(decoded.head_bytes, decoded.head_text) == 0, path.name
    for path in XML_FILES:
        decoded = _decoded(path)
        assert XMLP.detect(decoded.head_bytes, decoded.head_text) == 95, path.name
        assert TEXT.detect(decoded.head_bytes, decoded.head_text) == 0, path.name


OTHER_FORMATS = [
    path
    for folder in ("perfmon_csv", "fio_json", "robocopy", "get_counter", "eventlog_logon")
    for path in sorted((FIXTURES / folder).glob("*"))
]


@pytest.mark.parametrize("path", OTHER_FORMATS, ids=lambda p: p.name)
def test_detect_leaves_other_tools_files_alone(path: Path) -> None:
    decoded = _decoded(path)
    assert TEXT.detect(decoded.head_bytes, decoded.head_text) == 0
    assert XMLP.detect(decoded.head_bytes, decoded.head_text) == 0


@pytest.mark.parametrize(
    "text",
    [
        '[{"name": "logon", "started_at": "2015-07-01T10:15:00+10:00", "duration_ms": 38412.5}]',
        "name,started_at,duration_ms\nlogon,2015-07-01T10:15:00+10:00,38412.5\n",
        "Days              : 0\nHours             : 0\nTotalMilliseconds : 1234.5\n",
        '<?xml version="1.0"?>\n<Results><Other/></Results>\n',
    ],
)
def test_detect_leaves_timings_and_other_xml_alone(text: str) -> None:
    decoded = _decoded(text.encode())
    assert TEXT.detect(decoded.head_bytes, decoded.head_text) == 0
    assert XMLP.detect(decoded.head_bytes, decoded.head_text) == 0


def test_the_parsers_have_their_registry_names() -> None:
    assert (TEXT.name, TEXT.binary) == ("diskspd_text", False)
    assert (XMLP.name, XMLP.binary) == ("diskspd_xml", False)


# --------------------------------------------------------------------------
# hostile input (found by fuzzing)

SPACES = " " * 15_000  # just under the 16 KiB line cap


def test_it_reads_a_report_with_a_long_run_of_spaces_inside_a_results_line() -> None:
    text = _read_text(AZURE)
    padded = text.replace(
        "Results for timespan 1:", f"Results for timespan 1{SPACES}x\nResults for timespan 1:", 1
    )
    assert _values(_text(padded.encode())) == _values(_text(AZURE))
    spaced_unit = text.replace(
        "actual test time:       600.00s", f"actual test time:       600.00{SPACES}s", 1
    )
    assert _values(_text(spaced_unit.encode())) == _values(_text(AZURE))


def test_it_refuses_a_test_time_followed_by_a_long_run_of_spaces_and_text() -> None:
    text = _read_text(AZURE).replace(
        "actual test time:       600.00s", f"actual test time:       600.00{SPACES}x", 1
    )
    failure = _error(TEXT, text.encode(), extra={"started_at": STARTED})
    assert failure.message == "results for timespan 1 (line 32) have no 'actual test time'"
    assert failure.line == 32


def test_it_refuses_a_block_size_with_a_long_run_of_spaces_inside() -> None:
    text = _read_text(AZURE).replace("block size: 4096", f"block size: 4096{SPACES}x", 1)
    failure = _error(TEXT, text.encode(), extra={"started_at": STARTED})
    assert failure.message == (
        f"block size {'4096' + SPACES[:36]!r} is not a size DiskSpd writes (e.g. 4096 or 4KiB)"
    )
    assert failure.line == 24


@pytest.mark.parametrize(
    ("heading", "without"),
    [
        ("Total latency distribution:", "Total"),
        (r"E:\x.dat latency distribution :", r"E:\x.dat"),
        (r"E:\x.dat   LATENCY DISTRIBUTION", r"E:\x.dat"),
        ("latency distribution::", "latency distribution::"),  # one colon only
        (rf"E:\x.dat{SPACES}x", rf"E:\x.dat{SPACES}x"),  # no suffix: kept whole
        (rf"E:\x.dat{SPACES}latency distribution{SPACES}:{SPACES}", r"E:\x.dat"),
    ],
)
def test_it_strips_latency_distribution_from_a_table_heading(heading: str, without: str) -> None:
    assert without_suffix(heading, "latency distribution") == without

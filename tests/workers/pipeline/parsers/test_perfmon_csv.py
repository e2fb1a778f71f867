"""The perfmon CSV parser against the real sample logs and variants broken on purpose.

Expected numbers are computed here from the files with the csv module (an
independent reading), and the headline ones are also written out literally
after checking them by hand.
"""

from __future__ import annotations

import csv
import io
import random
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.paths import FIXTURES
from workers.pipeline.decode import Decoded, decode
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.common.counter_names import canonical_counter, canonical_object
from workers.pipeline.parsers.common.counter_paths import split_counter_path
from workers.pipeline.parsers.perfmon import PerfmonCsvParser
from workers.pipeline.records import CounterColumn, CounterRow, Parsed

PERFMON = FIXTURES / "perfmon_csv"
CHINA = PERFMON / "iversonlu_SystemPerformance_DCS_ChinaTZ_2633cols.csv"
INDIA = PERFMON / "narmadha_DataCollector01_LogicalDisk_IST.csv"
SRI_LANKA = PERFMON / "rajitharul_perfmon_SriLanka_1.2MB.csv"
RUSSIAN = PERFMON / "waflia_DataCollector01_ruRU_cp1251.csv"
DOTNET_COUNTERS = FIXTURES / "get_counter" / "martin11011_dotnet-counters_deDE.csv"

PARSER = PerfmonCsvParser()


def _decoded_file(path: Path, encoding: str | None = None) -> Decoded:
    return decode(lambda: path.open("rb"), encoding=encoding)


def _decoded_bytes(data: bytes, encoding: str | None = None) -> Decoded:
    return decode(lambda: io.BytesIO(data), encoding=encoding)


def _parse(source: Decoded, **context: Any) -> tuple[list[CounterColumn], list[CounterRow]]:
    parsed = PARSER.parse(source, ParseContext(**context))
    assert parsed.counters is not None
    return parsed.counters.columns, list(parsed.counters.rows)


def _error(source: Decoded, **context: Any) -> ParseError:
    with pytest.raises(ParseError) as info:
        _parse(source, **context)
    assert info.value.parser == "perfmon_csv"
    return info.value


def _at(when: str) -> datetime:
    return datetime.strptime(when, "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=UTC)


@dataclass
class _Reference:
    """The file as the csv module reads it, without the parser's help."""

    header: list[str]
    rows: list[tuple[int, list[str]]]  # (1-based line, cells) of every data row
    counter_indices: list[int]

    def column(self, source_path: str) -> int:
        return self.header.index(source_path)


def _reference(path: Path, encoding: str = "utf-8") -> _Reference:
    with path.open(encoding=encoding, newline="") as stream:
        records = list(csv.reader(stream))
    header = records[0]
    # Every record of these files sits on one physical line.
    rows = [(number, cells) for number, cells in enumerate(records[1:], start=2) if cells]
    counters = [index for index, cell in enumerate(header) if cell.startswith("\\\\")]
    return _Reference(header, rows, counters)


def _utc(local: str, bias_minutes: int) -> datetime:
    naive = datetime.strptime(local, "%m/%d/%Y %H:%M:%S.%f")
    return (naive + timedelta(minutes=bias_minutes)).replace(tzinfo=UTC)


def _bias(header: list[str]) -> int:
    found = re.search(r"\((-?\d+)\)$", header[0])
    assert found, header[0]
    return int(found.group(1))


def _values_of(columns: list[CounterColumn], rows: list[CounterRow], source_path: str) -> list[str | None]:
    index = [column.source_path for column in columns].index(source_path)
    return [row.values[index] for row in rows]


def _expected_values(reference: _Reference, source_path: str) -> list[str | None]:
    index = reference.column(source_path)
    return [None if cells[index] == " " else cells[index] for _, cells in reference.rows]


def _replace_cell(data: bytes, line: int, column: int, value: str) -> bytes:
    """``data`` with cell ``column`` (1-based) of physical ``line`` (1-based) set to ``value``."""
    lines = data.split(b"\n")
    cells = lines[line - 1].split(b'","')
    target = column - 1
    prefix = b'"' if target == 0 else b""
    suffix = b'"' if target == len(cells) - 1 else b""
    cells[target] = prefix + value.encode() + suffix
    lines[line - 1] = b'","'.join(cells)
    return b"\n".join(lines)


# --- detection ---------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(PERFMON.iterdir()), ids=lambda path: path.name[:24])
def test_it_claims_every_real_perfmon_csv(path: Path) -> None:
    decoded = _decoded_file(path)
    assert PARSER.detect(decoded.head_bytes, decoded.head_text) == 100


def test_it_does_not_claim_dotnet_counters_csv_which_is_another_format() -> None:
    decoded = _decoded_file(DOTNET_COUNTERS)
    assert decoded.head_text.startswith("Timestamp,Provider,Counter Name")
    assert PARSER.detect(decoded.head_bytes, decoded.head_text) == 0


def test_it_refuses_to_parse_dotnet_counters_csv_at_its_first_cell() -> None:
    error = _error(_decoded_file(DOTNET_COUNTERS))
    assert (error.line, error.column) == (1, 1)
    assert "'Timestamp'" in error.message
    assert "(PDH-CSV 4.0)" in error.message


def test_it_detects_by_content_through_a_bom_and_utf16() -> None:
    text = INDIA.read_text(encoding="utf-8")
    for data in (b"\xef\xbb\xbf" + text.encode(), text.encode("utf-16")):
        decoded = _decoded_bytes(data)
        assert PARSER.detect(decoded.head_bytes, decoded.head_text) == 100
    unquoted = b"(PDH-CSV 4.0) (UTC)(0),\\\\H\\Memory\\Available MBytes\r\n"
    assert PARSER.detect(unquoted, unquoted.decode()) == 100
    assert PARSER.detect(b'"Time","Value"\r\n', '"Time","Value"\r\n') == 0


# --- the real files ------------------------------------------------------------


def test_it_reads_the_china_log_with_2631_counters_and_skips_the_description_column() -> None:
    reference = _reference(CHINA)
    columns, rows = _parse(_decoded_file(CHINA))

    assert len(reference.header) == 2633
    assert len(columns) == len(reference.counter_indices) == 2631
    assert not reference.header[-1].startswith("\\\\")  # the Data Collector Set's description
    assert all(column.source_path.startswith("\\\\I-MEDUSA\\") for column in columns)
    assert [column.source_path for column in columns] == [
        reference.header[i] for i in reference.counter_indices
    ]

    assert len(rows) == len(reference.rows) == 61
    assert rows[0].time == _at("2025-11-14 05:46:00.750")  # 13:46 in China (bias -480)
    assert rows[-1].time == _at("2025-11-14 05:47:00.743")
    assert [row.time for row in rows] == [
        _utc(cells[0], _bias(reference.header)) for _, cells in reference.rows
    ]
    assert [row.line for row in rows] == [line for line, _ in reference.rows] == list(range(2, 63))


def test_it_keeps_the_china_logs_values_as_written_blanks_and_exponents_included() -> None:
    reference = _reference(CHINA)
    columns, rows = _parse(_decoded_file(CHINA))

    cpu = "\\\\I-MEDUSA\\Processor(_Total)\\% Processor Time"
    assert _values_of(columns, rows, cpu) == _expected_values(reference, cpu)
    cpu_values = _values_of(columns, rows, cpu)
    assert cpu_values[0] is None  # perfmon's " " first sample
    assert cpu_values[1] == "14.763162624449732263"
    assert cpu_values[30] == "14.287523495393095629"
    assert cpu_values[60] == "23.862011024117958158"

    latency = "\\\\I-MEDUSA\\PhysicalDisk(0 C:)\\Avg. Disk sec/Transfer"
    assert reference.column(latency) == 8
    assert _values_of(columns, rows, latency)[1] == "6.9494827586206889356e-005"

    memory = "\\\\I-MEDUSA\\Memory\\Available MBytes"
    assert _values_of(columns, rows, memory)[0] == "26003"
    assert _values_of(columns, rows, memory) == _expected_values(reference, memory)

    blanks = sum(value is None for row in rows for value in row.values)
    expected_blanks = sum(cells[i] == " " for _, cells in reference.rows for i in reference.counter_indices)
    assert blanks == expected_blanks


def test_it_splits_the_china_logs_counter_paths_into_host_object_instance_counter() -> None:
    columns, _ = _parse(_decoded_file(CHINA))
    by_path = {column.source_path: column for column in columns}
    assert by_path["\\\\I-MEDUSA\\PhysicalDisk(0 C:)\\Current Disk Queue Length"] == CounterColumn(
        "I-MEDUSA",
        "PhysicalDisk",
        "0 C:",
        "Current Disk Queue Length",
        "\\\\I-MEDUSA\\PhysicalDisk(0 C:)\\Current Disk Queue Length",
    )
    assert by_path["\\\\I-MEDUSA\\Memory\\Available MBytes"].instance == ""
    gpu = [column for column in columns if column.object == "GPU Engine"]
    assert len(gpu) == 2238
    assert all(column.instance.startswith("pid_") for column in gpu)


def test_it_reads_the_india_log_with_a_negative_bias() -> None:
    reference = _reference(INDIA)
    columns, rows = _parse(_decoded_file(INDIA))

    assert _bias(reference.header) == -330
    assert len(columns) == 12
    assert {column.object for column in columns} == {"LogicalDisk"}
    assert {column.instance for column in columns} == {"HarddiskVolume2", "C:", "D:", "_Total"}
    assert len(rows) == 21
    assert rows[0].time == _at("2017-09-19 04:21:39.073")  # 09:51:39 IST
    assert rows[-1].time == _at("2017-09-19 04:26:39.072")
    assert sum(value is None for value in rows[0].values) == 8
    read_queue_c = "\\\\IMPC3116\\LogicalDisk(C:)\\Avg. Disk Read Queue Length"
    assert _values_of(columns, rows, read_queue_c) == _expected_values(reference, read_queue_c)
    assert _values_of(columns, rows, read_queue_c)[1] == "0.032083023520161361"
    assert _values_of(columns, rows, read_queue_c)[10] == "0.0088619582491691606"


def test_it_streams_the_sri_lanka_log_of_11520_samples() -> None:
    reference = _reference(SRI_LANKA)
    columns, rows = _parse(_decoded_file(SRI_LANKA))

    assert [(column.object, column.instance, column.counter) for column in columns] == [
        ("Processor", "_Total", "% Processor Time"),
        ("Processor", "_Total", "% Idle Time"),
        ("Memory", "", "Available MBytes"),
        ("LogicalDisk", "_Total", "% Disk Time"),
    ]
    assert len(rows) == len(reference.rows) == 11520
    assert rows[0].time == _at("2023-04-28 00:25:48.490")  # 05:55:48 in Sri Lanka (bias -330)
    assert rows[-1].time == _at("2023-04-30 00:27:13.537")
    assert rows[0].values == [None, None, "7638", None]
    assert rows[1].values == [
        "13.959073156484624434",
        "52.460837673007368664",
        "6768",
        "1.6616409776677252275",
    ]
    middle = rows[5760]
    assert middle.line == 5762
    assert middle.time == _at("2023-04-29 00:26:40.701")
    assert middle.values == [
        "25.142889750751194811",
        "13.726340122430267243",
        "4365",
        "0.29932849269958311522",
    ]
    for path in reference.header[1:]:
        assert _values_of(columns, rows, path) == _expected_values(reference, path)


def test_it_needs_a_time_zone_for_the_russian_log_whose_header_is_cut_short() -> None:
    decoded = _decoded_file(RUSSIAN)
    assert decoded.encoding == "cp1251"
    error = _error(decoded)
    assert (error.line, error.column) == (1, 1)
    assert "no time-zone offset" in error.message
    assert "RTZ 2" in error.message
    assert "`timezone`" in error.message


def test_it_reads_the_russian_log_in_moscow_time_and_maps_its_names_to_english() -> None:
    reference = _reference(RUSSIAN, encoding="cp1251")
    columns, rows = _parse(_decoded_file(RUSSIAN), timezone="Europe/Moscow")

    assert len(columns) == len(reference.counter_indices) == 1104
    assert len(rows) == len(reference.rows) == 26
    assert rows[0].time == _at("2021-09-20 13:48:17.954")  # 16:48:17 in Moscow (UTC+3)
    assert rows[-1].time == _at("2021-09-20 13:48:42.942")
    assert sum(value is None for value in rows[0].values) == 828
    assert sum(value is None for value in rows[1].values) == 0

    assert {column.object for column in columns} == {"Process"}
    assert {column.counter for column in columns} == {
        "% Processor Time",
        "IO Write Bytes/sec",
        "IO Read Bytes/sec",
        "Working Set",
    }
    by_path = {column.source_path: column for column in columns}
    total_cpu = "\\\\DESKTOP-LRPVSK4\\Процесс(_Total)\\% загруженности процессора"
    assert by_path[total_cpu] == CounterColumn(
        "DESKTOP-LRPVSK4", "Process", "_Total", "% Processor Time", total_cpu
    )
    assert by_path["\\\\DESKTOP-LRPVSK4\\Процесс(_Total)\\Рабочий набор"].counter == "Working Set"
    assert by_path["\\\\DESKTOP-LRPVSK4\\Процесс(csrss#1)\\% загруженности процессора"].instance == "csrss#1"

    assert _values_of(columns, rows, total_cpu) == _expected_values(reference, total_cpu)
    assert _values_of(columns, rows, total_cpu)[1] == "1202.281680247145232"
    idle = "\\\\DESKTOP-LRPVSK4\\Процесс(Idle)\\% загруженности процессора"
    assert _values_of(columns, rows, idle)[12] == "1083.1648369282893327"  # above 100 %: many cores


def test_it_names_the_russian_processor_object_in_english_too() -> None:
    text = RUSSIAN.read_bytes().decode("cp1251").replace("\\Процесс(", "\\Процессор(")
    columns, _ = _parse(_decoded_bytes(text.encode("cp1251")), timezone="Europe/Moscow")
    cpu = [
        column for column in columns if column.instance == "_Total" and column.counter == "% Processor Time"
    ]
    assert [(column.object, column.source_path) for column in cpu] == [
        ("Processor", "\\\\DESKTOP-LRPVSK4\\Процессор(_Total)\\% загруженности процессора")
    ]


def test_it_reads_a_utf16_copy_exactly_like_the_original() -> None:
    original = _parse(_decoded_file(INDIA))
    copy = INDIA.read_text(encoding="utf-8").encode("utf-16")
    assert _parse(_decoded_bytes(copy)) == original


def test_it_returns_the_header_at_once_and_reads_rows_only_when_asked() -> None:
    data = _replace_cell(INDIA.read_bytes(), line=12, column=3, value="n/a")
    parsed: Parsed = PARSER.parse(_decoded_bytes(data), ParseContext())
    assert parsed.parser == "perfmon_csv"
    assert parsed.tool == "perfmon"
    assert parsed.counters is not None
    assert len(parsed.counters.columns) == 12
    rows = parsed.counters.rows
    assert [next(rows).line for _ in range(10)] == list(range(2, 12))
    with pytest.raises(ParseError):
        next(rows)


# --- time zones ---------------------------------------------------------------


def _without_bias(path: Path) -> bytes:
    data = path.read_bytes()
    first_line, rest = data.split(b"\n", 1)
    cells = first_line.split(b'","', 1)
    stripped = re.sub(rb"\(-?\d+\)$", b"(", cells[0])
    return stripped + b'","' + cells[1] + b"\n" + rest


def test_it_refuses_a_missing_bias_when_the_upload_gives_no_time_zone() -> None:
    error = _error(_decoded_bytes(_without_bias(INDIA)))
    assert (error.line, error.column) == (1, 1)
    assert "no time-zone offset" in error.message
    assert "India Standard Time" in error.message


def test_it_converts_with_the_uploads_time_zone_when_the_bias_is_missing() -> None:
    columns, rows = _parse(_decoded_bytes(_without_bias(INDIA)), timezone="Asia/Kolkata")
    original_columns, original_rows = _parse(_decoded_file(INDIA))
    assert columns == original_columns
    assert rows == original_rows
    assert rows[0].time == _at("2017-09-19 04:21:39.073")


def test_it_trusts_the_header_bias_over_the_uploads_time_zone() -> None:
    _, rows = _parse(_decoded_file(INDIA), timezone="America/New_York")
    assert rows[0].time == _at("2017-09-19 04:21:39.073")


def test_it_applies_daylight_saving_per_timestamp_with_an_iana_zone() -> None:
    data = (
        b'"(PDH-CSV 4.0) (W. Europe Standard Time)(","\\\\H\\Memory\\Available MBytes"\r\n'
        b'"03/25/2017 12:00:00.000","100"\r\n'
        b'"03/26/2017 12:00:00.000","200"\r\n'
    )
    _, rows = _parse(_decoded_bytes(data), timezone="Europe/Berlin")
    assert [row.time for row in rows] == [_at("2017-03-25 11:00:00.000"), _at("2017-03-26 10:00:00.000")]


def test_it_rejects_an_unknown_time_zone_name() -> None:
    error = _error(_decoded_bytes(_without_bias(INDIA)), timezone="Mars/Olympus_Mons")
    assert "unknown timezone 'Mars/Olympus_Mons'" in error.message


# --- broken files ---------------------------------------------------------------


def test_it_reports_a_file_cut_off_between_cells() -> None:
    data = INDIA.read_bytes()
    cut = data[: data.rindex(b'","0","0.0019876778911682054"') + 2]
    last_line = cut.rsplit(b"\n", 1)[1].decode()
    cells = len(next(csv.reader([last_line])))
    assert cells == 8
    error = _error(_decoded_bytes(cut))
    assert error.line == 22
    assert error.message == "line 22 has 8 cells, expected 13 (file truncated?)"


def test_it_reports_a_file_cut_off_inside_a_cell() -> None:
    data = INDIA.read_bytes()
    cut = data[: data.rindex(b"0.0019876778911682054") + 7]
    error = _error(_decoded_bytes(cut))
    assert error.line == 22
    assert "truncated" in error.message


def test_it_reports_a_cp1251_file_read_as_utf8() -> None:
    error = _error(_decoded_file(RUSSIAN, encoding="utf-8"), timezone="Europe/Moscow")
    assert "not valid utf-8" in error.message


def test_it_reports_a_cp1252_byte_deep_inside_a_utf8_file() -> None:
    text = RUSSIAN.read_bytes().decode("cp1251")
    lines = text.split("\n")
    lines[20] = lines[20].replace('","', '","caf\N{LATIN SMALL LETTER E WITH ACUTE}', 1)
    data = "\n".join(lines[:20]).encode("utf-8") + b"\n" + "\n".join(lines[20:]).encode("cp1252", "replace")
    decoded = _decoded_bytes(data)
    assert decoded.encoding == "utf-8"  # the Cyrillic header is valid UTF-8
    parsed = PARSER.parse(decoded, ParseContext(timezone="Europe/Moscow"))
    assert parsed.counters is not None
    with pytest.raises(ParseError) as info:
        list(parsed.counters.rows)
    assert info.value.parser == "perfmon_csv"
    assert "not valid utf-8" in info.value.message
    assert "b'\\xe9'" in info.value.message


def test_it_reports_random_bytes_as_not_a_perfmon_csv() -> None:
    data = random.Random(20240321).randbytes(50_000)
    decoded = _decoded_bytes(data)
    assert PARSER.detect(decoded.head_bytes, decoded.head_text) == 0
    error = _error(decoded)
    assert error.line == 1


def test_it_reports_an_empty_file() -> None:
    error = _error(_decoded_bytes(b""))
    assert error.line == 1
    assert "empty" in error.message


def test_it_refuses_a_huge_line_without_reading_it_whole() -> None:
    header = INDIA.read_bytes().split(b"\n", 1)[0] + b"\n"
    huge = header + b'"09/19/2017 09:51:39.073",' + b'"1",' * 500_000 + b'"1"\n'
    error = _error(_decoded_bytes(huge), max_line_bytes=1_000_000)
    assert error.line == 2
    assert "longer than the limit of 1,000,000 characters" in error.message


def test_it_refuses_a_huge_first_line() -> None:
    huge = b'"(PDH-CSV 4.0) (UTC)(0)",' + b'"\\\\H\\Memory\\Available MBytes",' * 40_000 + b"\n"
    error = _error(_decoded_bytes(huge), max_line_bytes=100_000)
    assert error.line == 1


def test_it_names_line_column_and_counter_of_a_non_numeric_value() -> None:
    data = _replace_cell(INDIA.read_bytes(), line=12, column=3, value="n/a")
    error = _error(_decoded_bytes(data))
    assert (error.line, error.column) == (12, 3)
    assert "'n/a'" in error.message
    assert "\\\\IMPC3116\\LogicalDisk(C:)\\Avg. Disk Read Queue Length" in error.message
    assert "expected a decimal number" in error.message
    assert str(error).startswith("line 12, column 3: ")


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("1_000", "is not a number"),
        ("inf", "is not a finite number"),
        ("NaN", "is not a finite number"),
        ("1e999", "is not a finite number"),
        ("\N{ARABIC-INDIC DIGIT ONE}", "is not a number"),
        ("0x10", "is not a number"),
        ("12,5", "is not a number"),
    ],
)
def test_it_refuses_values_postgresql_would_not_take(value: str, problem: str) -> None:
    data = _replace_cell(INDIA.read_bytes(), line=5, column=13, value=value)
    error = _error(_decoded_bytes(data))
    assert (error.line, error.column) == (5, 13)
    assert problem in error.message


def test_it_accepts_exponents_twenty_digit_integers_and_padded_numbers() -> None:
    data = INDIA.read_bytes()
    data = _replace_cell(data, line=3, column=2, value="6.9e-005")
    data = _replace_cell(data, line=3, column=3, value="12345678901234567890")
    data = _replace_cell(data, line=3, column=4, value=" 42 ")
    data = _replace_cell(data, line=3, column=5, value="")
    _, rows = _parse(_decoded_bytes(data))
    assert rows[1].values[:4] == ["6.9e-005", "12345678901234567890", "42", None]


def test_it_names_the_line_of_a_bad_timestamp() -> None:
    data = _replace_cell(INDIA.read_bytes(), line=7, column=1, value="19.09.2017 09:53:09")
    error = _error(_decoded_bytes(data))
    assert (error.line, error.column) == (7, 1)
    assert "04/18/2017 10:33:57.208" in error.message


def test_it_reads_timestamps_without_milliseconds() -> None:
    data = _replace_cell(INDIA.read_bytes(), line=2, column=1, value="9/19/2017 09:51:39")
    _, rows = _parse(_decoded_bytes(data))
    assert rows[0].time == _at("2017-09-19 04:21:39.000")


def test_it_skips_blank_lines_and_keeps_physical_line_numbers() -> None:
    data = INDIA.read_bytes().replace(b"\n", b"\n\r\n", 3)
    _, rows = _parse(_decoded_bytes(data))
    assert len(rows) == 21
    assert [row.line for row in rows[:3]] == [3, 5, 7]


def test_it_keeps_the_first_of_two_identical_columns() -> None:
    data = (
        b'"(PDH-CSV 4.0) (UTC)(0)","\\\\H\\Memory\\Available MBytes","\\\\H\\Memory\\Pages/sec",'
        b'"\\\\H\\Memory\\Available MBytes"\r\n'
        b'"01/02/2024 03:04:05.006","1","2","3"\r\n'
    )
    columns, rows = _parse(_decoded_bytes(data))
    assert [column.counter for column in columns] == ["Available MBytes", "Pages/sec"]
    assert rows[0].values == ["1", "2"]
    assert rows[0].time == _at("2024-01-02 03:04:05.006")


def test_it_refuses_more_counter_columns_than_the_upload_allows() -> None:
    error = _error(_decoded_file(CHINA), max_columns=2000)
    assert error.line == 1
    assert "more than 2,000 counter columns" in error.message


def test_it_refuses_a_header_cell_that_looks_like_a_path_but_is_not_one() -> None:
    data = b'"(PDH-CSV 4.0) (UTC)(0)","\\\\HOST-ONLY"\r\n"01/02/2024 03:04:05.006","1"\r\n'
    error = _error(_decoded_bytes(data))
    assert (error.line, error.column) == (1, 2)


def test_it_refuses_a_header_without_counters() -> None:
    error = _error(_decoded_bytes(b'"(PDH-CSV 4.0) (UTC)(0)","Description"\r\n'))
    assert error.line == 1
    assert "no counter columns" in error.message


# --- names ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("\\\\S\\Processor(_Total)\\% Processor Time", ("S", "Processor", "_Total", "% Processor Time")),
        ("\\\\S\\Memory\\Available MBytes", ("S", "Memory", "", "Available MBytes")),
        ("\\\\S\\Process(svchost#12)\\Working Set", ("S", "Process", "svchost#12", "Working Set")),
        (
            "\\\\S\\Network Interface(Intel[R] Ethernet (2) I219-V)\\Bytes Total/sec",
            ("S", "Network Interface", "Intel[R] Ethernet (2) I219-V", "Bytes Total/sec"),
        ),
        (
            "\\\\C\\SMB Client Shares(\\fs01\\home)\\Avg. sec/Read",
            ("C", "SMB Client Shares", "\\fs01\\home", "Avg. sec/Read"),
        ),
        ("\\Processor(0)\\% Idle Time", ("", "Processor", "0", "% Idle Time")),
        (
            "\\\\S\\Physikalischer Datenträger(0 C:)\\Mittlere Sek./Übertragung",
            ("S", "PhysicalDisk", "0 C:", "Avg. Disk sec/Transfer"),
        ),
        ("\\\\S\\Mémoire\\Mégaoctets disponibles", ("S", "Memory", "", "Available MBytes")),
        (
            "\\\\S\\Disque physique(_Total)\\% d\N{RIGHT SINGLE QUOTATION MARK}inactivité",
            ("S", "PhysicalDisk", "_Total", "% Idle Time"),
        ),
        (
            "\\\\S\\Interfaz de red(eth)\\Bytes recibidos/s",
            ("S", "Network Interface", "eth", "Bytes Received/sec"),
        ),
        (
            "\\\\S\\Физический диск(_Total)\\Средняя длина очереди диска",
            ("S", "PhysicalDisk", "_Total", "Avg. Disk Queue Length"),
        ),
        ("\\\\S\\Unknown Object(x)\\Made-up Counter", ("S", "Unknown Object", "x", "Made-up Counter")),
    ],
)
def test_it_splits_counter_paths_and_names_them_in_english(
    path: str, expected: tuple[str, str, str, str]
) -> None:
    assert split_counter_path(path) == expected


@pytest.mark.parametrize(
    "path", ["no backslash", "\\\\HOST", "\\\\HOST\\Object", "\\\\\\Object\\Counter", "\\\\H\\Obj(x\\Counter"]
)
def test_it_refuses_malformed_counter_paths(path: str) -> None:
    assert split_counter_path(path) is None


def test_it_maps_localised_counters_only_under_their_own_object() -> None:
    # German "Lesevorgänge/s" is Disk Reads/sec under a disk, not under System.
    assert canonical_counter("PhysicalDisk", "Lesevorgänge/s") == "Disk Reads/sec"
    assert canonical_counter("System", "Lesevorgänge/s") == "Lesevorgänge/s"
    assert canonical_object("Arbeitsspeicher") == canonical_object("Память") == "Memory"
    assert canonical_counter("Processor", "% 处理器时间") == "% Processor Time"

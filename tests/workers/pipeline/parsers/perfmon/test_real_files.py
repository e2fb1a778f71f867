"""The perfmon CSV parser against the real sample logs.

Expected numbers are computed here from the files with the csv module (an
independent reading), and the headline ones are also written out literally
after checking them by hand.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.workers.pipeline.parsers.perfmon.helpers import (
    CHINA,
    INDIA,
    PARSER,
    RUSSIAN,
    SRI_LANKA,
    _at,
    _decoded_bytes,
    _decoded_file,
    _error,
    _parse,
    _replace_cell,
)
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.records import CounterColumn, CounterRow, Parsed


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

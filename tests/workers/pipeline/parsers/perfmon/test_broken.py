"""Perfmon CSV logs broken on purpose: cut off, mis-encoded, bad cells and headers."""

from __future__ import annotations

import csv
import random

import pytest

from tests.workers.pipeline.parsers.perfmon.helpers import (
    CHINA,
    INDIA,
    PARSER,
    RUSSIAN,
    _at,
    _decoded_bytes,
    _decoded_file,
    _error,
    _parse,
    _replace_cell,
)
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.base import ParseContext


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

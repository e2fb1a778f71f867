"""The timings parser: JSON, JSON Lines, CSV and Measure-Command layouts, and its errors."""

from __future__ import annotations

import codecs
import csv
import io
import json
import tracemalloc
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from workers.pipeline.decode import decode
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.timings import TimingsParser
from workers.pipeline.records import Measurement, Parsed


def _parsed(data: bytes | str, **context: Any) -> Parsed:
    raw = data.encode() if isinstance(data, str) else data
    decoded = decode(lambda: io.BytesIO(raw))
    return TimingsParser().parse(decoded, ParseContext(**context))


def _parse(data: bytes | str, **context: Any) -> list[Measurement]:
    return list(_parsed(data, **context).measurements)


def _error(data: bytes | str, **context: Any) -> ParseError:
    with pytest.raises(ParseError) as info:
        _parse(data, **context)
    assert info.value.parser == "timings"
    return info.value


def _detect(data: bytes | str) -> int:
    raw = data.encode() if isinstance(data, str) else data
    decoded = decode(lambda: io.BytesIO(raw))
    return TimingsParser().detect(decoded.head_bytes, decoded.head_text)


def _utc(
    year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0, micro: int = 0
) -> datetime:
    return datetime(year, month, day, hour, minute, second, micro, tzinfo=UTC)


JSON_LIST = """[
  {"name": "logon", "started_at": "2015-07-01T10:15:00+10:00", "duration_ms": 38412.5,
   "repetition": 1, "scenario": {"smb_dialect": "2.1", "server_cpu_load": 50}, "host": "RDSH01"},
  {
    "name": "logon",
    "started_at": "2015-07-01T00:20:00Z",
    "duration_ms": 37990
  }
]
"""

MEASURE_COMMAND_BLOCK = """
Days              : 0
Hours             : 0
Minutes           : 0
Seconds           : 1
Milliseconds      : 234
Ticks             : 12345678
TotalDays         : 1.42889675925926E-05
TotalHours        : 0.000342935222222222
TotalMinutes      : 0.0205761133333333
TotalSeconds      : 1.2345678
TotalMilliseconds : {total}

"""


# ---------------------------------------------------------------- JSON


def test_it_parses_a_json_list_of_rows() -> None:
    parsed = _parsed(JSON_LIST)
    assert parsed.parser == "timings"
    assert parsed.tool == "timing"
    first, second = list(parsed.measurements)
    assert first == Measurement(
        time=_utc(2015, 7, 1, 0, 15),
        metric="logon",
        value=38412.5,
        unit="ms",
        repetition=1,
        scenario={"smb_dialect": "2.1", "server_cpu_load": "50"},
        host="RDSH01",
        line=2,
    )
    assert second.time == _utc(2015, 7, 1, 0, 20)
    assert second.value == 37990.0
    assert second.repetition == 1
    assert second.scenario is None
    assert second.host is None
    assert second.line == 4


def test_it_applies_top_level_defaults_to_rows_without_their_own() -> None:
    data = json.dumps(
        {
            "scenario": {"redirection": "none"},
            "host": "CLIENT01",
            "timings": [
                {"name": "Excel launch", "started_at": "2015-06-10T10:00:00+10:00", "duration_ms": 1200},
                {
                    "name": "Excel launch",
                    "started_at": "2015-06-10T10:01:00+10:00",
                    "duration_ms": 6600,
                    "repetition": 2,
                    "scenario": {"redirection": "on", "smb_dialect": "2.1"},
                    "host": "CLIENT02",
                },
            ],
        },
        indent=2,
    )
    first, second = _parse(data)
    assert first.scenario == {"redirection": "none"}
    assert first.host == "CLIENT01"
    assert first.line == 7
    assert second.scenario == {"redirection": "on", "smb_dialect": "2.1"}
    assert second.host == "CLIENT02"
    assert second.repetition == 2
    assert second.time == _utc(2015, 6, 10, 0, 1)


def test_it_parses_json_lines_with_the_line_of_each_object() -> None:
    data = (
        '{"name": "logon", "started_at": "2015-07-01T10:00:00+10:00", "duration_ms": 1, "repetition": 1}\n'
        "\n"
        '{"name": "logon", "started_at": "2015-07-01T10:05:00+10:00", "duration_ms": 2.5, "repetition": 2}\n'
    )
    first, second = _parse(data)
    assert (first.line, first.value, first.repetition) == (1, 1.0, 1)
    assert (second.line, second.value, second.repetition) == (3, 2.5, 2)
    assert second.time == _utc(2015, 7, 1, 0, 5)


def test_it_parses_a_single_json_object() -> None:
    (only,) = _parse('{"name": "sync", "started_at": "2015-07-01T09:00:00.250Z", "duration_ms": 5}')
    assert only.time == _utc(2015, 7, 1, 9, 0, 0, 250000)
    assert only.metric == "sync"


def test_it_reads_naive_timestamps_in_the_upload_timezone() -> None:
    data = '[{"name": "logon", "started_at": "2015-07-01 10:00:00", "duration_ms": 5}]'
    (winter,) = _parse(data, timezone="Australia/Sydney")
    assert winter.time == _utc(2015, 7, 1, 0, 0)
    (summer,) = _parse(data.replace("07-01", "01-15"), timezone="Australia/Sydney")
    assert summer.time == _utc(2015, 1, 14, 23, 0)


def test_it_converts_a_json_row_unit_to_milliseconds() -> None:
    data = '[{"name": "copy", "started_at": "2015-07-01T10:00:00Z", "duration_ms": 1.5, "unit": "s"}]'
    (only,) = _parse(data)
    assert only.value == 1500.0
    assert only.unit == "ms"


def test_it_accepts_numeric_strings_and_ignores_tags_and_unknown_keys() -> None:
    data = (
        '[{"name": "copy", "started_at": "2015-07-01T10:00:00Z", "duration_ms": "12.5",'
        ' "repetition": "3", "tags": ["nightly"], "agent": "1.0", "subject": "robocopy"}]'
    )
    (only,) = _parse(data)
    assert (only.value, only.repetition, only.subject) == (12.5, 3, "robocopy")


def test_it_reports_invalid_json_with_the_decoders_line_and_column() -> None:
    data = '[\n  {"name": "a", "started_at": "2015-07-01T10:00:00Z" "duration_ms": 1}\n]'
    error = _error(data)
    assert error.message == "invalid JSON: Expecting ',' delimiter"
    assert (error.line, error.column) == (2, 54)


def test_it_reports_a_broken_string_where_json_finds_it() -> None:
    data = '[\n {"name": "a\n"}]'
    error = _error(data)
    assert error.message.startswith("invalid JSON: Invalid control character")
    assert error.line == 2


def test_it_reports_a_missing_property_name() -> None:
    error = _error('{"timings": [{"name": "a",}]}')
    assert error.message == "invalid JSON: Expecting property name enclosed in double quotes"
    assert (error.line, error.column) == (1, 27)


def test_it_reports_a_missing_field_at_the_line_of_its_object() -> None:
    data = '[\n  {"name": "a", "started_at": "2015-07-01T10:00:00Z", "duration_ms": 1},\n  {"name": "b",\n   "started_at": "2015-07-01T10:00:00Z"}\n]'
    error = _error(data)
    assert error.message == 'timing is missing "duration_ms" (the duration in milliseconds)'
    assert (error.line, error.column) == (3, 3)


@pytest.mark.parametrize(
    ("duration", "shown"),
    [("-5", "-5"), ('"abc"', '"abc"'), ("true", "true"), ("NaN", "NaN"), ("null", None)],
)
def test_it_rejects_a_bad_duration_at_its_value(duration: str, shown: str | None) -> None:
    data = '[{"name": "a", "started_at": "2015-07-01T10:00:00Z",\n  "duration_ms": ' + duration + "}]"
    error = _error(data)
    if shown is None:
        assert error.message == '"duration_ms" is null; expected the duration in milliseconds'
        assert (error.line, error.column) == (2, 18)
    else:
        assert error.message == f'"duration_ms" must be a non-negative finite number, got {shown}'
        assert (error.line, error.column) == (2, 18)


@pytest.mark.parametrize("repetition", ["0", "1.5", '"x"', "-2", "false"])
def test_it_rejects_a_repetition_that_is_not_a_positive_whole_number(repetition: str) -> None:
    data = (
        '[{"name": "a", "started_at": "2015-07-01T10:00:00Z", "duration_ms": 1, "repetition": '
        + repetition
        + "}]"
    )
    error = _error(data)
    assert error.message.startswith('"repetition" must be a positive whole number, got ')
    assert (error.line, error.column) == (1, 86)


def test_it_rejects_a_timestamp_that_is_not_iso_8601() -> None:
    error = _error('[{"name": "a", "started_at": "07/01/2015 10:00", "duration_ms": 1}]')
    assert error.message == (
        '"started_at" must be an ISO 8601 timestamp such as 2015-07-01T10:15:00+10:00, got "07/01/2015 10:00"'
    )
    assert (error.line, error.column) == (1, 30)


def test_it_rejects_a_numeric_timestamp() -> None:
    error = _error('[{"name": "a", "started_at": 1435708800, "duration_ms": 1}]')
    assert error.message == '"started_at" must be an ISO 8601 timestamp string, got 1435708800'


def test_it_rejects_a_naive_timestamp_without_an_upload_timezone() -> None:
    error = _error('[\n{"name": "a", "started_at": "2015-07-01T10:00:00", "duration_ms": 1}]')
    assert error.message == (
        '"started_at" "2015-07-01T10:00:00" has no UTC offset; add one (e.g. Z or +10:00) '
        "or upload the file with a timezone"
    )
    assert (error.line, error.column) == (2, 29)


def test_it_rejects_an_unknown_upload_timezone() -> None:
    error = _error(
        '[{"name": "a", "started_at": "2015-07-01T10:00:00", "duration_ms": 1}]', timezone="Mars/Base"
    )
    assert error.message == "unknown timezone 'Mars/Base'; expected an IANA name such as 'Europe/London'"


def test_it_rejects_an_empty_name() -> None:
    error = _error('[{"name": " ", "started_at": "2015-07-01T10:00:00Z", "duration_ms": 1}]')
    assert error.message == '"name" must be a non-empty string, got " "'
    assert error.column == 11


def test_it_rejects_a_scenario_that_is_not_flat() -> None:
    error = _error(
        '[{"name": "a", "started_at": "2015-07-01T10:00:00Z", "duration_ms": 1, "scenario": {"av": ["on"]}}]'
    )
    assert error.message == '"scenario" value of \'av\' must be a string or number, got ["on"]'
    error = _error(
        '[{"name": "a", "started_at": "2015-07-01T10:00:00Z", "duration_ms": 1, "scenario": "av"}]'
    )
    assert error.message == '"scenario" must be an object of dimension names to values, got "av"'


def test_it_rejects_a_row_that_is_not_an_object() -> None:
    error = _error('[\n  {"name": "a", "started_at": "2015-07-01T10:00:00Z", "duration_ms": 1},\n  42\n]')
    assert error.message == "expected a timing object, got 42"
    assert (error.line, error.column) == (3, 3)


def test_it_rejects_timings_that_are_not_a_list() -> None:
    error = _error('{"timings": {"name": "a"}}')
    assert error.message == 'invalid JSON: "timings" must be a list of timing objects'
    assert (error.line, error.column) == (1, 13)


def test_it_rejects_a_json_document_that_holds_no_rows() -> None:
    error = _error('{"fio version": "fio-3.13"}\n')
    assert error.message == 'timing is missing "name" (what was timed, e.g. "logon" or "Excel launch")'
    assert (error.line, error.column) == (1, 1)
    error = _error("[1,]")
    assert error.message == "invalid JSON: Expecting value"
    assert (error.line, error.column) == (1, 4)


def test_it_rejects_extra_data_after_a_json_list() -> None:
    error = _error('[{"name": "a", "started_at": "2015-07-01T10:00:00Z", "duration_ms": 1}]\n[]')
    assert error.message == "invalid JSON: Extra data"
    assert (error.line, error.column) == (2, 1)


def test_it_rejects_a_json_lines_line_that_is_not_an_object() -> None:
    data = '{"name": "a", "started_at": "2015-07-01T10:00:00Z", "duration_ms": 1}\n[1]\n'
    error = _error(data)
    assert error.message == "invalid JSON: expected one timing object per line (JSON Lines)"
    assert (error.line, error.column) == (2, 1)


def test_it_rejects_json_nested_too_deeply_for_the_decoder() -> None:
    error = _error("[" * 100_000)
    assert error.message == "invalid JSON: nested too deeply"
    assert (error.line, error.column) == (1, 2)


def test_it_rejects_a_file_without_rows() -> None:
    error = _error("[]")
    assert error.message == "the file holds no timing rows"
    assert error.line == 1


# ---------------------------------------------------------------- CSV

CSV = (
    "name,started_at,duration_ms,repetition,host,scenario,scenario.av,unit\r\n"
    'robocopy 1 GB,2015-03-02T09:00:00Z,16284,1,CLIENT01,"{""ca_share"": ""on""}",,\r\n'
    "robocopy 1 GB,2015-03-02T09:01:00+01:00,11.8,2,,ca_share=off;server_os=2012 R2,off,s\r\n"
    "\r\n"
    "logon,2015-03-02T09:05:00Z,38000,,,,,\r\n"
)


def test_it_parses_csv_rows_with_every_optional_column() -> None:
    first, second, third = _parse(CSV)
    assert first == Measurement(
        time=_utc(2015, 3, 2, 9, 0),
        metric="robocopy 1 GB",
        value=16284.0,
        unit="ms",
        repetition=1,
        scenario={"ca_share": "on"},
        host="CLIENT01",
        line=2,
    )
    assert second.time == _utc(2015, 3, 2, 8, 1)
    assert second.value == 11800.0
    assert second.repetition == 2
    assert second.scenario == {"ca_share": "off", "server_os": "2012 R2", "av": "off"}
    assert second.host is None
    assert second.line == 3
    assert (third.line, third.repetition, third.scenario, third.value) == (5, 1, None, 38000.0)


def test_it_parses_a_semicolon_separated_utf8_bom_csv_with_scenario_columns_only() -> None:
    data = codecs.BOM_UTF8 + (
        b"Name;Started_At;Duration_ms;Scenario.SMB_dialect\n"
        b"logon;2015-07-01T10:00:00+10:00;38412.5;3.02\n"
        b"logon;2015-07-01T10:02:00+10:00;38000;\n"
    )
    first, second = _parse(data)
    assert first.scenario == {"SMB_dialect": "3.02"}
    assert first.value == 38412.5
    assert second.scenario is None


def test_it_parses_a_utf16_csv_and_counts_lines_across_quoted_line_breaks() -> None:
    text = (
        "name,started_at,duration_ms,host\r\n"
        '"launch\r\nFirefox",2015-07-01T10:00:00Z,900,C1\r\n'
        "launch,2015-07-01T10:01:00Z,-1,C1\r\n"
    )
    error = _error(codecs.BOM_UTF16_LE + text.encode("utf-16-le"))
    assert error.message == '"duration_ms" must be a non-negative finite number, got "-1"'
    assert (error.line, error.column) == (4, 3)
    (only,) = _parse(codecs.BOM_UTF16_LE + text.replace("-1", "1").encode("utf-16-le"))[:1]
    assert only.metric == "launch\r\nFirefox"
    assert only.line == 2


def test_it_reads_naive_csv_timestamps_in_the_upload_timezone() -> None:
    (only,) = _parse("name,started_at,duration_ms\nlogon,2015-01-15T10:00:00,1\n", timezone="Europe/London")
    assert only.time == _utc(2015, 1, 15, 10, 0)


def test_it_names_the_missing_csv_header_columns() -> None:
    error = _error("name,start,duration\nlogon,2015-07-01T10:00:00Z,1\n")
    assert error.message == (
        "not a timings file: expected JSON, Measure-Command output, or a CSV header with at least "
        "name,started_at,duration_ms (missing started_at, duration_ms)"
    )
    assert error.line == 1


def test_it_reports_a_bad_csv_cell_by_line_and_field_number() -> None:
    error = _error(
        "name,started_at,duration_ms,repetition\nlogon,2015-07-01T10:00:00Z,1,2\nlogon,2015-07-01T10:00:00Z,1,0\n"
    )
    assert error.message == '"repetition" must be a positive whole number, got "0"'
    assert (error.line, error.column) == (3, 4)


def test_it_rejects_a_csv_row_with_the_wrong_number_of_fields() -> None:
    error = _error("name,started_at,duration_ms\nlogon,2015-07-01T10:00:00Z\n")
    assert error.message == "row has 2 fields but the header has 3"
    assert (error.line, error.column) == (2, 3)
    error = _error("name,started_at,duration_ms\nlogon,2015-07-01T10:00:00Z,1,surprise\n")
    assert error.message == "row has 4 fields but the header has 3"
    assert (error.line, error.column) == (2, 4)


def test_it_ignores_trailing_empty_cells_a_spreadsheet_adds() -> None:
    (only,) = _parse("name,started_at,duration_ms\nlogon,2015-07-01T10:00:00Z,1,,\n,,\n")
    assert only.value == 1.0


def test_it_rejects_an_empty_required_csv_cell() -> None:
    error = _error("name,started_at,duration_ms\n,2015-07-01T10:00:00Z,1\n")
    assert error.message == '"name" is empty; expected what was timed, e.g. "logon" or "Excel launch"'
    assert (error.line, error.column) == (2, 1)


def test_it_rejects_a_malformed_csv_scenario() -> None:
    error = _error("name,started_at,duration_ms,scenario\nlogon,2015-07-01T10:00:00Z,1,smb 3\n")
    assert error.message == '"scenario" must be a JSON object or k=v;k=v pairs, got "smb 3"'
    assert (error.line, error.column) == (2, 4)
    error = _error('name,started_at,duration_ms,scenario\nlogon,2015-07-01T10:00:00Z,1,"{""av"": }"\n')
    assert error.message == '"scenario" is not valid JSON (Expecting value at character 8)'


def test_it_rejects_a_scenario_column_that_contradicts_the_scenario_cell() -> None:
    error = _error(
        "name,started_at,duration_ms,scenario,scenario.av\nlogon,2015-07-01T10:00:00Z,1,av=on,off\n"
    )
    assert error.message == '"scenario.av" is "off" but "scenario" sets av="on"'
    assert (error.line, error.column) == (2, 5)


def test_it_rejects_an_unknown_unit() -> None:
    error = _error("name,started_at,duration_ms,unit\nlogon,2015-07-01T10:00:00Z,1,days\n")
    assert error.message == '"unit" must be one of ms, us, µs, s, sec, min, h, got "days"'
    assert (error.line, error.column) == (2, 4)


def test_it_rejects_a_duplicate_csv_column() -> None:
    error = _error("name,started_at,duration_ms,Name\nlogon,2015-07-01T10:00:00Z,1,x\n")
    assert error.message == "column 'Name' appears twice in the header"
    assert (error.line, error.column) == (1, 4)


def test_it_rejects_a_csv_file_with_only_a_header() -> None:
    assert _error("name,started_at,duration_ms\r\n").message == "the file holds no timing rows"


# ---------------------------------------------------------------- Measure-Command


def test_it_parses_measure_command_blocks_as_back_to_back_repetitions() -> None:
    data = (
        "PS C:\\> 1..2 | % { Measure-Command { robocopy a b } }\n"
        + MEASURE_COMMAND_BLOCK.format(total="1234.5678")
        + MEASURE_COMMAND_BLOCK.format(total="1000")
    )
    first, second = _parse(data, extra={"name": "robocopy 1 GB", "started_at": "2015-03-02T09:00:00Z"})
    assert first == Measurement(
        time=_utc(2015, 3, 2, 9, 0),
        metric="robocopy 1 GB",
        value=1234.5678,
        unit="ms",
        repetition=1,
        line=3,
    )
    assert second.repetition == 2
    assert second.value == 1000.0
    assert second.line == 16
    assert second.time == _utc(2015, 3, 2, 9, 0, 1, 234568)


def test_it_names_a_measure_command_timing_command_by_default_and_reads_comma_decimals() -> None:
    data = MEASURE_COMMAND_BLOCK.format(total="1234,5678").encode("utf-16-le")
    (only,) = _parse(
        codecs.BOM_UTF16_LE + data, extra={"started_at": "2015-03-02T10:00:00"}, timezone="Europe/Berlin"
    )
    assert only.metric == "command"
    assert only.value == 1234.5678
    assert only.time == _utc(2015, 3, 2, 9, 0)


def test_it_falls_back_to_ticks_when_total_milliseconds_is_missing() -> None:
    block = MEASURE_COMMAND_BLOCK.format(total="").replace("TotalMilliseconds : \n", "")
    data = MEASURE_COMMAND_BLOCK.format(total="5") + block
    first, second = _parse(data, extra={"started_at": "2015-03-02T09:00:00Z"})
    assert (first.value, second.value) == (5.0, 1234.5678)


def test_it_parses_the_total_milliseconds_table() -> None:
    data = "\nTotalMilliseconds\n-----------------\n        1234.5678\n          987.125\n\n"
    assert _detect(data) == 80
    first, second = _parse(data, extra={"started_at": "2015-03-02T09:00:00Z", "name": "launch"})
    assert (first.value, first.line, first.repetition) == (1234.5678, 4, 1)
    assert (second.value, second.line, second.repetition) == (987.125, 5, 2)


def test_it_requires_started_at_for_measure_command_output() -> None:
    error = _error(MEASURE_COMMAND_BLOCK.format(total="1"))
    assert error.message == (
        "PowerShell Measure-Command output holds no start time; upload it with started_at "
        "(ISO 8601, e.g. 2015-07-01T10:15:00+10:00)"
    )
    assert error.line == 2


def test_it_rejects_a_bad_total_milliseconds() -> None:
    error = _error(MEASURE_COMMAND_BLOCK.format(total="n/a"), extra={"started_at": "2015-03-02T09:00:00Z"})
    assert error.message == 'TotalMilliseconds must be a non-negative number, got "n/a"'
    assert error.line == 12


# ---------------------------------------------------------------- detect


@pytest.mark.parametrize(
    ("data", "score"),
    [
        (JSON_LIST, 90),
        ('{"host": "C1", "timings": [{"name": "a", "started_at": "x", "duration_ms": 1}]}', 90),
        ('{"host": "C1", "timings": [{"name": "a", "started_at": "x", "duration_ms": 1}, {"name": ', 90),
        ('{"name": "a", "started_at": "x", "duration_ms": 1}\n{"name": "b"', 90),
        (CSV, 90),
        ("Name;Started_At;Duration_ms\n", 90),
        (MEASURE_COMMAND_BLOCK.format(total="1"), 80),
        ('"(PDH-CSV 4.0) (GMT Standard Time)(0)","\\\\FS01\\Memory\\Available MBytes"\n', 0),
        ('{"fio version": "fio-3.13", "jobs": []}', 0),
        ('[{"name": "a", "duration_ms": 1}]', 0),
        ("hello world\n", 0),
        ("", 0),
    ],
)
def test_it_detects_timings_from_content(data: str, score: int) -> None:
    assert _detect(data) == score


# ---------------------------------------------------------------- hostile input (found by fuzzing)

LONG_DIGITS = "9" * 5000  # past Python's 4,300-digit limit for int()


@pytest.fixture
def default_csv_field_limit() -> Iterator[None]:
    """The csv module's own limit (other parsers raise it for the whole process)."""
    previous = csv.field_size_limit(131_072)
    yield
    csv.field_size_limit(previous)


def test_it_points_at_a_json_integer_too_long_to_read() -> None:
    data = '[{"name": "a", "started_at": "2015-07-01T10:00:00Z",\n  "duration_ms": ' + LONG_DIGITS + "}]"
    error = _error(data)
    assert error.message.startswith("invalid JSON: a whole number has more than 4,300 digits; expected")
    assert (error.line, error.column) == (2, 18)


def test_it_rejects_a_json_integer_beyond_any_float_as_a_bad_duration() -> None:
    data = '[{"name": "a", "started_at": "2015-07-01T10:00:00Z",\n  "duration_ms": ' + "9" * 400 + "}]"
    error = _error(data)
    assert error.message == f'"duration_ms" must be a non-negative finite number, got {"9" * 57}...'
    assert (error.line, error.column) == (2, 18)


def test_it_does_not_detect_a_json_head_whose_first_row_it_cannot_read() -> None:
    assert _detect('[{"name": "a", "started_at": "x", "duration_ms": ' + LONG_DIGITS + "}]") == 0


def test_it_rejects_a_csv_scenario_holding_a_json_integer_too_long_to_read() -> None:
    data = f'name,started_at,duration_ms,scenario\nlogon,2015-07-01T10:00:00Z,1,"{{""av"": {LONG_DIGITS}}}"\n'
    error = _error(data)
    assert error.message == '"scenario" holds a number too long to read; expected an object of short values'
    assert (error.line, error.column) == (2, 4)


@pytest.mark.parametrize(
    ("repetition", "message"),
    [
        ("\u00b2", 'must be a positive whole number, got "\u00b2"'),  # isdigit() but not int()-able
        (LONG_DIGITS, f'must be at most 2,147,483,647, got "{"9" * 56}...'),
        ("2147483648", 'must be at most 2,147,483,647, got "2147483648"'),
    ],
)
def test_it_rejects_a_csv_repetition_it_cannot_store(repetition: str, message: str) -> None:
    error = _error(f"name,started_at,duration_ms,repetition\nlogon,2015-07-01T10:00:00Z,1,{repetition}\n")
    assert error.message == f'"repetition" {message}'
    assert (error.line, error.column) == (2, 4)


@pytest.mark.usefixtures("default_csv_field_limit")
def test_it_rejects_a_csv_header_field_over_the_csv_modules_limit() -> None:
    data = "name,started_at,duration_ms," + "x" * 200_000 + "\nlogon,2015-07-01T10:00:00Z,1,\n"
    assert TimingsParser().detect(data.encode(), data) == 0  # the whole line, not a 64 KiB head
    error = _error(data)
    assert error.message == (
        "malformed CSV header (field larger than field limit (131072)); "
        "expected a header with at least name,started_at,duration_ms"
    )
    assert error.line == 1


def test_it_rejects_a_timestamp_that_has_no_utc_equivalent() -> None:
    error = _error(
        '[{"name": "a", "started_at": "0001-01-01T00:00:00", "duration_ms": 1}]', timezone="Asia/Kolkata"
    )
    assert error.message == (
        '"started_at" "0001-01-01T00:00:00" is too close to year 1 or 9999 to express in UTC; expected a real time'
    )
    assert (error.line, error.column) == (1, 30)


def test_it_detects_measure_command_output_after_thousands_of_blank_lines() -> None:
    assert _detect(" \n" * 30_000) == 0
    assert _detect(" \n" * 30_000 + MEASURE_COMMAND_BLOCK.format(total="1")) == 80
    assert _detect("\n" * 1_000 + "TotalMilliseconds\n" + " \n" * 1_000 + "-----------------\n 5\n") == 80


def test_it_reports_a_measure_command_value_with_a_long_run_of_spaces_inside() -> None:
    data = MEASURE_COMMAND_BLOCK.format(total="12" + " " * 20_000 + "x")
    error = _error(data, extra={"started_at": "2015-03-02T09:00:00Z"})
    assert error.message == f'TotalMilliseconds must be a non-negative number, got "12{" " * 54}...'
    assert error.line == 12


class _Endless(io.RawIOBase):
    """A timings CSV of ``rows`` rows made as it is read; reading past ``allowed`` bytes fails."""

    def __init__(self, rows: int, allowed: int) -> None:
        self.rows, self.allowed, self.read_bytes = rows, allowed, 0
        self.chunks = self._chunks()
        self.pending = b""

    def _chunks(self) -> Iterator[bytes]:
        yield "name,started_at,duration_ms\nCafé launch,2015-07-01T10:00:00Z,1\n".encode()
        row = b"logon,2015-07-01T10:00:00Z,2\n" * 1000
        for _ in range(self.rows // 1000):
            yield row

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self.pending:
            self.pending = next(self.chunks, b"")
            if not self.pending:
                return 0
        size = min(len(buffer), len(self.pending))
        buffer[:size], self.pending = self.pending[:size], self.pending[size:]
        self.read_bytes += size
        assert self.read_bytes <= self.allowed, "the parser read past a bounded prefix"
        return size


def test_a_bad_json_row_surfaces_only_when_loading_pulls_it() -> None:
    rows = [{"name": "logon", "started_at": "2015-07-01T10:00:00Z", "duration_ms": 5}] * 3 + [{}]
    measurements = iter(_parsed(json.dumps(rows)).measurements)
    assert [next(measurements).value for _ in range(3)] == [5.0, 5.0, 5.0]
    with pytest.raises(ParseError, match='timing is missing "name"'):
        next(measurements)


# ---------------------------------------------------------------- JSON through a window (issue 26 item 2)

JSON_ROW = '{"name": "logon", "started_at": "2015-07-01T10:00:00Z", "duration_ms": 2}'


class _EndlessJson(_Endless):
    """A timings JSON list of ``rows`` rows, one a line, made as it is read."""

    def _chunks(self) -> Iterator[bytes]:
        yield '[{"name": "Café launch", "started_at": "2015-07-01T10:00:00Z", "duration_ms": 1}'.encode()
        rows = ("\n," + JSON_ROW).encode() * 1000
        for _ in range(self.rows // 1000):
            yield rows
        yield b"\n]"


@pytest.mark.parametrize("source", [_Endless, _EndlessJson], ids=["csv", "json"])
def test_it_yields_rows_before_reading_past_a_bounded_prefix_of_the_file(source: type[_Endless]) -> None:
    """Issue 26 item 2: a 2 M-row CSV was parsed into a list, and a 1 M-row JSON document read
    whole as text (twice its size in memory), before the first row was stored."""
    sources: list[_Endless] = []

    def opener() -> io.BufferedReader:
        sources.append(source(rows=20_000_000, allowed=1024 * 1024))
        return io.BufferedReader(sources[-1])

    parsed = TimingsParser().parse(decode(opener), ParseContext())
    rows = iter(parsed.measurements)
    first, second = next(rows), next(rows)
    assert (first.metric, first.value, second.metric, second.value) == ("Café launch", 1.0, "logon", 2.0)
    assert sources[-1].read_bytes < 1024 * 1024


def _numbered_rows(count: int) -> list[str]:
    return [
        f'{{"name": "logon",\n "started_at": "2015-07-01T10:00:00Z", "duration_ms": {i}, "repetition": {i + 1}}}'
        for i in range(count)
    ]


def test_it_reads_a_json_list_longer_than_its_window_and_points_at_errors_past_it() -> None:
    rows = _numbered_rows(30_000)  # about 3 MB: many times the window the scanner reads through
    measurements = _parse("[\n" + ",\n".join(rows) + "\n]")
    assert len(measurements) == 30_000
    assert (measurements[-1].value, measurements[-1].repetition) == (29_999.0, 30_000)
    assert sum(m.value for m in measurements) == 29_999 * 30_000 / 2

    broken = "[\n" + ",\n".join(rows[:25_000]) + ",\n" + rows[25_000].replace(",", "", 1) + "\n]"
    with pytest.raises(json.JSONDecodeError) as decoder:
        json.loads(broken)
    error = _error(broken)
    assert error.message == f"invalid JSON: {decoder.value.msg}"
    assert (error.line, error.column) == (decoder.value.lineno, decoder.value.colno) == (50_003, 2)

    bad_row = "[\n" + ",\n".join(rows[:25_000]) + ',\n{"name": "x",\n  "started_at": 7, "duration_ms": 1}\n]'
    error = _error(bad_row)
    assert error.message == '"started_at" must be an ISO 8601 timestamp string, got 7'
    assert (error.line, error.column) == (50_003, 17)


def test_a_syntax_error_after_a_bad_json_row_is_reported_first_as_before() -> None:
    rows = _numbered_rows(20_000)
    data = "[\n" + ",\n".join(['{"name": "x"}', *rows]) + "\n] x"
    error = _error(data)
    assert error.message == "invalid JSON: Extra data"
    assert (error.line, error.column) == (40_003, 3)


def test_it_reads_a_long_wrapper_whose_defaults_follow_its_rows() -> None:
    rows = _numbered_rows(20_000)
    data = '{"timings": [\n' + ",\n".join(rows) + '\n],\n "host": "RDSH01", "scenario": {"av": "on"}}'
    measurements = _parse(data)
    assert len(measurements) == 20_000
    assert {(m.host, tuple(sorted(m.scenario.items()))) for m in measurements} == {
        ("RDSH01", (("av", "on"),))
    }
    bad_host = data.replace('"host": "RDSH01"', '"host": 5')
    error = _error(bad_host)
    assert error.message == '"host" must be a string, got 5'
    assert (error.line, error.column) == (40_003, 10)


def test_it_reads_long_json_lines_after_a_first_object_holding_a_timings_list() -> None:
    lines = [line.replace("\n", "") for line in _numbered_rows(20_000)]
    first = '{"name": "sync", "started_at": "2015-07-01T09:00:00Z", "duration_ms": 7, "timings": [1, 2]}'
    measurements = _parse(first + "\n" + "\n".join(lines) + "\n")
    assert len(measurements) == 20_001
    assert (measurements[0].metric, measurements[0].value) == ("sync", 7.0)
    assert sum(m.value for m in measurements[1:]) == 19_999 * 20_000 / 2


def test_it_refuses_a_json_value_longer_than_its_window_may_grow() -> None:
    name = "x" * (16 * 1024 * 1024 + 1)
    error = _error('[\n  {"name": "' + name + '", "started_at": "2015-07-01T10:00:00Z", "duration_ms": 1}]')
    assert error.message == "a JSON value longer than 16 MiB of text; a timing row is a small object"
    assert (error.line, error.column) == (2, 3)


def test_it_drops_long_runs_of_whitespace_as_it_reads_them() -> None:
    gap = " \n" * (4 * 1024 * 1024)  # 8 MiB between the values: the window must not hold it
    data = "[" + gap + JSON_ROW + "," + gap + JSON_ROW + gap + "]" + gap
    raw = data.encode()
    tracemalloc.start()
    try:
        rows = _parse(raw)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [(row.metric, row.value) for row in rows] == [("logon", 2.0), ("logon", 2.0)]
    assert peak < 4 * 1024 * 1024  # the file is 32 MiB of text; the window reads 64 Ki characters at a time

    bad = data.replace("[" + gap + JSON_ROW + "," + gap, "[" + gap + JSON_ROW + "," + gap + '{"name": "x"},')
    error = _error(bad)
    assert error.message == 'timing is missing "started_at" (an ISO 8601 timestamp)'
    assert (error.line, error.column) == (2 * 4 * 1024 * 1024 + 1, 1)

"""The timings parser on CSV files, and the errors it reports for them."""

from __future__ import annotations

import codecs

from tests.workers.pipeline.parsers.timings.helpers import CSV, _error, _parse, _utc
from workers.pipeline.records import Measurement


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

"""The timings parser on JSON lists, wrappers and JSON Lines, and the errors it reports for them."""

from __future__ import annotations

import json

import pytest

from tests.workers.pipeline.parsers.timings.helpers import JSON_LIST, _error, _parse, _parsed, _utc
from workers.pipeline.records import Measurement


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

"""The timings parser on hostile input found by fuzzing, and rows read lazily."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator

import pytest

from tests.workers.pipeline.parsers.timings.helpers import MEASURE_COMMAND_BLOCK, _detect, _error, _parsed
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.timings import TimingsParser

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


def test_a_bad_json_row_surfaces_only_when_loading_pulls_it() -> None:
    rows = [{"name": "logon", "started_at": "2015-07-01T10:00:00Z", "duration_ms": 5}] * 3 + [{}]
    measurements = iter(_parsed(json.dumps(rows)).measurements)
    assert [next(measurements).value for _ in range(3)] == [5.0, 5.0, 5.0]
    with pytest.raises(ParseError, match='timing is missing "name"'):
        next(measurements)

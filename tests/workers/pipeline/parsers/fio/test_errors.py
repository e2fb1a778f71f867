"""The fio JSON parser refuses truncated, broken and hostile files (found by fuzzing) clearly."""

from __future__ import annotations

import json

import pytest

from tests.workers.pipeline.parsers.fio.helpers import REAL, _base, _by_key, _doc_text, _error, _parsed
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.fio.records import block_size


def test_it_refuses_a_truncated_file_with_the_place_it_ends() -> None:
    text = (REAL / "fio_json" / "vc_fio-3.26_randwrite.json").read_text()
    cut = text[: len(text) // 2]
    error = _error(cut)
    assert "truncated" in error.message
    assert error.line == cut.count("\n") + 1
    assert error.column is not None


def test_it_reports_json_errors_on_the_files_own_lines_after_prefix_text() -> None:
    text = "fio: one\nfio: two\n" + '{\n  "fio version" : "fio-3.1",\n  "jobs" : [ 1 2 ]\n}\n'
    error = _error(text)
    assert error.message.startswith("invalid fio JSON: Expecting ',' delimiter")
    assert (error.line, error.column) == (5, 16)  # the 2 in [ 1 2 ]


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"", "empty"),
        (b"   \r\n  \n", "empty"),
        (b"\x00\x01garbage\xff\xfe binary noise", "no JSON object"),
        (b"fio: pid=1, err=5/file:io_u.c:1, func=io_u error=Input/output error\n", "no JSON object"),
        (b'{"name": "logon", "started_at": "2015-07-01T10:15:00Z"}', "not fio output"),
        (b'[{"jobs": []}]', "not fio output"),
        (b'{"fio version": "fio-3.1", "timestamp": 1, "jobs": {}}', '"jobs" must be a list'),
        (b'{"fio version": "fio-3.1", "timestamp": 1, "jobs": []}', "is empty"),
        (b'{"fio version": "fio-3.1", "timestamp": 1, "jobs": [7]}', "must be an object"),
        (b'{"fio version": "fio-3.1", "timestamp": 1, "jobs": [{"error": 0}]}', '"jobname"'),
    ],
)
def test_it_refuses_broken_files_with_a_clear_message(data: bytes, words: str) -> None:
    error = _error(data)
    assert words in error.message
    assert error.line is not None


def test_it_refuses_a_figure_of_the_wrong_type_on_its_jobs_line() -> None:
    doc = _base()
    doc["jobs"][0]["write"]["iops"] = "fast"
    error = _error(_doc_text(doc))
    assert '"write.iops" must be a number' in error.message
    assert (
        error.line
        == _doc_text(doc).splitlines().index('      "jobname": "fio_randrw_1GB_4k_d1_th1_direct",') + 1
    )


def test_it_refuses_a_broken_object_after_complete_results() -> None:
    text = _doc_text(_base()) + '\n{"fio version": "fio-3.26", "jobs": ['
    error = _error(text)
    assert "after the complete fio results" in error.message


def test_it_refuses_text_that_is_not_valid_in_its_encoding() -> None:
    doc = _doc_text(_base()).encode()
    # UTF-8 decided from a valid head, then a stray byte far beyond it.
    data = doc.replace(b'"fio version"', 'é"fio version"'.encode(), 1) + b" " * 70000 + b"\xff"
    with pytest.raises(ParseError):
        list(_parsed(data).measurements)


# --------------------------------------------------------------------------
# Hostile input (found by fuzzing)


LONG_DIGITS = "9" * 5000  # past Python's 4,300-digit limit for int()


def test_it_points_at_an_integer_too_long_to_read() -> None:
    text = "fio: one\n" + _doc_text(_base()).replace('"error": 0', '"error": ' + LONG_DIGITS, 1)
    error = _error(text)
    assert error.message.startswith("invalid fio JSON: a whole number has more than 4,300 digits; expected")
    line = text[: text.index(LONG_DIGITS)].count("\n") + 1
    assert (error.line, error.column) == (line, text.splitlines()[line - 1].index(LONG_DIGITS) + 1)


def test_it_skips_a_long_digit_string_inside_a_json_string_when_locating_the_integer() -> None:
    doc = _base()
    doc["jobs"][0]["job options"]["comment"] = LONG_DIGITS
    text = _doc_text(doc).replace('"error": 0', '"error": -' + LONG_DIGITS, 1)
    error = _error(text)
    assert error.line == text[: text.index("-" + LONG_DIGITS)].count("\n") + 1


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("iops", "9" * 400, '"write.iops" must be a number, got 999'),
        ("iops", "Infinity", '"write.iops" must be a number, got Infinity'),
    ],
)
def test_it_refuses_a_figure_beyond_any_float(key: str, value: str, words: str) -> None:
    doc = _base()
    doc["jobs"][0]["write"][key] = 12345.5
    error = _error(_doc_text(doc).replace("12345.5", value))
    assert error.message.startswith(words)


def test_it_refuses_an_error_code_or_timestamp_beyond_any_date_or_float() -> None:
    doc = _base()
    doc["jobs"][0]["error"] = 12345.5
    assert (
        '"error" must be a number, got Infinity'
        in _error(_doc_text(doc).replace("12345.5", "Infinity")).message
    )
    doc = _base()
    doc["timestamp"] = 12345.5
    error = _error(_doc_text(doc).replace("12345.5", "9" * 400))  # not a float: falls back, no started_at
    assert "started_at" in error.message
    error = _error(_doc_text(doc).replace("12345.5", "99999999999999"))
    assert error.message == '"timestamp" 99999999999999 is not a time fio can have written (epoch seconds)'
    assert error.line == 1


def test_it_refuses_a_block_size_too_long_to_be_a_number() -> None:
    with pytest.raises(ParseError) as info:
        block_size("4" * 400 + "k", 1024, 7)
    assert info.value.message == f"block size '{'4' * 37}...' is not a fio size such as 4k or 1M"
    assert info.value.line == 7
    assert block_size("  4k  ", 1024, 1) == "4096"
    with pytest.raises(ParseError):
        block_size("4" + " " * 30_000 + "x", 1024, 7)


def test_it_refuses_a_local_time_with_no_utc_equivalent() -> None:
    doc = _base()
    del doc["timestamp"], doc["timestamp_ms"]
    doc["time"] = "Mon Jan  1 00:00:00 0001"
    error = _error(_doc_text(doc), timezone="Asia/Kolkata")
    assert (
        error.message
        == "the time 0001-01-01T00:00:00 is too close to year 1 or 9999 to express in UTC; expected a real time"
    )
    assert error.line == 1


def test_it_finds_the_document_after_a_run_of_thousands_of_braces() -> None:
    parsed = _parsed("{" * 50_000 + "\n" + _doc_text(_base()))
    assert parsed.run_attributes["fio_messages"] == "{" * 2000
    values = {key: item.value for key, item in _by_key(parsed).items()}
    assert values == {key: item.value for key, item in _by_key(_parsed(_doc_text(_base()))).items()}


def test_it_reports_the_first_json_error_of_a_document_holding_a_run_of_braces() -> None:
    text = _doc_text(_base()).replace('"jobs": [', '"jobs": [' + "{" * 50_000, 1)
    with pytest.raises(json.JSONDecodeError) as expected:
        json.loads(text)
    error = _error(text)
    assert error.message == f"invalid fio JSON: {expected.value.msg}"
    assert (error.line, error.column) == (expected.value.lineno, expected.value.colno)

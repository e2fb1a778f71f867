"""Perfmon CSV time zones: the header's bias, the upload's time zone, daylight saving."""

from __future__ import annotations

import re
from pathlib import Path

from tests.workers.pipeline.parsers.perfmon.helpers import (
    INDIA,
    _at,
    _decoded_bytes,
    _decoded_file,
    _error,
    _parse,
)


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

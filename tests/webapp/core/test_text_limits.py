"""Line length and perfmon header columns, judged while the bytes stream in."""

from __future__ import annotations

import codecs
import csv

import pytest

from tests.paths import FIXTURES
from webapp.core.text_limits import LimitExceeded, TextLimits

PERFMON = FIXTURES / "perfmon_csv" / "iversonlu_SystemPerformance_DCS_ChinaTZ_2633cols.csv"


def feed(data: bytes, *, chunk: int = 7, max_line: int = 10, max_columns: int = 100) -> TextLimits:
    limits = TextLimits(max_line, max_columns)
    for start in range(0, len(data), chunk):
        limits(data[start : start + chunk])
    limits(b"")
    return limits


def refused(data: bytes, **kwargs: int) -> LimitExceeded:
    with pytest.raises(LimitExceeded) as caught:
        feed(data, **kwargs)
    return caught.value


def test_lines_up_to_the_limit_pass_in_any_chunking():
    data = b"0123456789\nabc\n\n0123456789\r\nxyz"
    for chunk in (1, 3, 7, 11, 64):
        assert feed(data.replace(b"\r", b""), chunk=chunk).lines == 4


@pytest.mark.parametrize("chunk", [1, 4, 7, 100])
def test_the_first_line_over_the_limit_is_named_wherever_the_chunks_split_it(chunk):
    data = b"short\nfine line\n" + b"x" * 11 + b"\nlast\n"
    error = refused(data, chunk=chunk)
    assert (error.code, error.line) == ("line_too_long", 3)
    assert str(error).startswith("line 3 is longer than the limit of 10 bytes")


def test_a_last_line_without_a_newline_counts_too():
    assert refused(b"a\nb\n" + b"z" * 12, chunk=100).line == 3


def test_json_and_event_logs_are_not_judged_by_lines():
    one_line_json = b'  [{"name": "logon", "value": "' + b"v" * 500 + b'"}]'
    feed(one_line_json, max_line=10)
    feed(codecs.BOM_UTF8 + b'{"samples": "' + b"v" * 500 + b'"}', max_line=10)
    feed(b"ElfFile\x00" + b"\xff" * 500, max_line=10)


def test_a_perfmon_header_with_more_counters_than_allowed_is_refused_on_line_1():
    data = PERFMON.read_bytes()
    cells = next(csv.reader([data.split(b"\n", 1)[0].decode("utf-8-sig").rstrip("\r")]))
    counters = len({cell.lower() for cell in cells[1:] if cell.startswith("\\\\")})
    assert (len(cells), counters) == (2633, 2631)  # the time column and one that is not a counter
    feed(data, chunk=65536, max_line=10**9, max_columns=counters)
    error = refused(data, chunk=65536, max_line=10**9, max_columns=counters - 1)
    assert (error.code, error.line) == ("too_many_columns", 1)
    assert f"has {counters:,} counter columns, more than the limit of {counters - 1:,}" in str(error)


def test_a_utf16_perfmon_header_is_counted_in_characters_not_bytes():
    header = (
        '"(PDH-CSV 4.0) (W. Europe Standard Time)(-60)","\\\\FS01\\CPU","\\\\FS01\\Disk","\\\\FS01\\Net"\r\n'
    )
    data = codecs.BOM_UTF16_LE + (header + '"06/01/2015 09:00:00.000","1","2","3"\r\n').encode("utf-16-le")
    feed(data, chunk=5, max_line=10**6, max_columns=3)
    assert refused(data, chunk=5, max_line=10**6, max_columns=2).code == "too_many_columns"


def test_other_csv_files_are_not_counted_as_perfmon_headers():
    feed(b"name,started_at,duration_ms," + b"x," * 50 + b"\n", max_line=1000, max_columns=3)


def test_a_description_column_and_repeated_paths_are_not_counters():
    header = (
        '"(PDH-CSV 4.0) (UTC)(0)","Daily collector set","\\\\FS01\\CPU","\\\\FS01\\Disk","\\\\fs01\\cpu"\r\n'
    )
    data = header.encode() + b'"06/01/2015 09:00:00.000","","1","2","1"\r\n'
    feed(data, chunk=9, max_line=10**6, max_columns=2)
    assert refused(data, chunk=9, max_line=10**6, max_columns=1).code == "too_many_columns"

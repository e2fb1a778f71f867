"""The timings parser reads JSON through a bounded window (issue 26 item 2)."""

from __future__ import annotations

import io
import json
import tracemalloc
from collections.abc import Iterator
from typing import Any

import pytest

from tests.workers.pipeline.parsers.timings.helpers import _error, _parse
from workers.pipeline.decode import decode
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.timings import TimingsParser


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

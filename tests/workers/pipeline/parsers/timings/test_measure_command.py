"""The timings parser on PowerShell Measure-Command output."""

from __future__ import annotations

import codecs

from tests.workers.pipeline.parsers.timings.helpers import (
    MEASURE_COMMAND_BLOCK,
    _detect,
    _error,
    _parse,
    _utc,
)
from workers.pipeline.records import Measurement


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

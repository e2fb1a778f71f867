"""The agent's live-samples parser: one batch, and the hostile input fuzzing found."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from typing import Any

import pytest

from workers.pipeline.decode import decode
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.samples_json import SamplesJsonParser
from workers.pipeline.records import CounterRow, Parsed

COUNTER = "\\\\FS01\\Processor(_Total)\\% Processor Time"
LONG_DIGITS = "9" * 5000  # past Python's 4,300-digit limit for int()


def _batch(value: Any = 12.5, time: str = "2015-06-01T10:00:00Z") -> dict[str, Any]:
    return {"host": "FS01", "samples": [{"time": time, "counter": COUNTER, "value": value}]}


def _parsed(text: str) -> Parsed:
    raw = text.encode()
    return SamplesJsonParser().parse(decode(lambda: io.BytesIO(raw)), ParseContext())


def _rows(text: str) -> list[CounterRow]:
    parsed = _parsed(text)
    assert parsed.counters is not None
    return list(parsed.counters.rows)


def _error(text: str) -> ParseError:
    with pytest.raises(ParseError) as info:
        _rows(text)
    assert info.value.parser == "samples"
    return info.value


def test_it_reads_a_batch_into_one_row_per_time() -> None:
    (row,) = _rows(json.dumps(_batch()))
    assert row.time == datetime(2015, 6, 1, 10, 0, tzinfo=UTC)
    assert row.values == ["12.5"]


def test_it_points_at_an_integer_too_long_to_read() -> None:
    text = json.dumps(_batch(), indent=1).replace("12.5", LONG_DIGITS)
    error = _error(text)
    assert error.message.startswith("invalid JSON: a whole number has more than 4,300 digits; expected")
    line = text[: text.index(LONG_DIGITS)].count("\n") + 1
    assert (error.line, error.column) == (line, text.splitlines()[line - 1].index(LONG_DIGITS) + 1)


@pytest.mark.parametrize("value", ["9" * 400, "-" + "9" * 400, "Infinity", "NaN"])
def test_it_refuses_a_value_beyond_any_float(value: str) -> None:
    error = _error(json.dumps(_batch()).replace("12.5", value))
    assert error.message == "samples[0].value must be a finite number"


def test_it_refuses_a_time_with_no_utc_equivalent() -> None:
    error = _error(json.dumps(_batch(time="0001-01-01T00:00:00+05:00")))
    assert error.message == (
        "samples[0].time '0001-01-01T00:00:00+05:00' is too close to year 1 or 9999 to express in UTC; expected a real time"
    )


def test_it_refuses_a_sample_padded_with_hundreds_of_values_before_building_the_rest() -> None:
    """Issue 26 item 5: items of 400 values each were all built (867 MB for 26,908 of them)."""
    batch = _batch()
    batch["samples"] = [{**batch["samples"][0], "pad": [0] * 400}] * 3 + ["not even an object"]
    error = _error(json.dumps(batch))
    assert error.message == (
        "samples[0] holds more than 64 JSON values; a sample is a time, a counter and a value"
    )


def test_it_takes_the_host_from_after_the_samples() -> None:
    text = json.dumps(
        {
            "samples": [
                {"time": "2015-06-01T10:00:00Z", "object": "Memory", "counter_name": "x", "value": 1}
            ],
            "host": "FS02",
        }
    )
    parsed = _parsed(text)
    assert parsed.counters is not None
    assert [column.host for column in parsed.counters.columns] == ["FS02"]


@pytest.mark.parametrize("depth", [33, 100_000])
def test_it_refuses_nesting_deeper_than_a_batch_can_be(depth: int) -> None:
    """A fuzzed batch inside 100,000 brackets took 25 s in ijson's own paths before the first event."""
    text = "[" * depth + json.dumps(_batch()) + "]" * depth
    error = _error(text)
    assert error.message == (
        "JSON nested deeper than 32 levels; a batch is an object with a 'samples' list of flat objects"
    )


def test_the_event_paths_are_ijsons_own() -> None:
    import ijson

    from workers.pipeline.parsers.samples_json import _events

    document = {
        "host": "FS01",
        "samples": [{"time": "t", "value": 1, "extra": {"a": [1, {"b": None}], "c": {}}}, [], [[2.5]]],
        "a.b": {"": [True, "x"]},
        "empty": {},
    }
    text = json.dumps(document)
    ours = list(_events(decode(lambda: io.BytesIO(text.encode()))))
    assert ours == list(ijson.parse(io.BytesIO(text.encode()), use_float=True))
    assert ("samples.item.extra.a.item", "start_map", None) in ours

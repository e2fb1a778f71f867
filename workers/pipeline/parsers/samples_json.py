"""Live counter samples posted by agents (``POST /api/v1/samples``).

The batch is JSON: ``{"samples": [{"time", "counter" | ("object",
"instance", "counter_name"), "value"}], "host", ...}``. ``counter`` is a
perfmon path (``\\\\HOST\\Object(Instance)\\Counter``); the agent maps psutil
figures to the canonical perfmon names so capacity views treat live samples
and perfmon logs alike. The batch is turned into the same wide counter table
a perfmon CSV gives.

The batch is read as a stream of JSON events (ijson) and each sample built
and checked as it ends: a sample is a handful of scalars, so one holding more
than ``MAX_SAMPLE_VALUES`` JSON values is refused at once and a batch padded
with large items never becomes millions of Python objects. Events carry
their path (``samples.item.value``) built here from ijson's basic events, and
nesting deeper than ``MAX_DEPTH`` is refused: ijson's own paths cost the
square of the depth (100,000 brackets took 25 s before the first event).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any, ClassVar, TextIO

import ijson

from workers.pipeline.clock import in_utc
from workers.pipeline.decode import Decoded, Opener
from workers.pipeline.errors import ParseError
from workers.pipeline.jsontext import long_integer_error
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.common.counter_paths import split_counter_path
from workers.pipeline.records import CounterColumn, CounterRow, CounterTable, Parsed

NAME = "samples"
# A sample is time, counter (or object, instance, counter_name) and value: about a dozen
# JSON events. Room for a few extra keys; past this an item is refused, not built.
MAX_SAMPLE_VALUES = 64
# A batch is an object holding a list of objects; past this depth it is not one.
MAX_DEPTH = 32
_SCALARS = frozenset({"null", "boolean", "integer", "double", "number", "string"})


def _time(value: Any, index: int) -> datetime:
    if not isinstance(value, str):
        raise ParseError(f"samples[{index}].time must be an ISO 8601 string", parser=NAME)
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ParseError(
            f"samples[{index}].time {value!r} is not an ISO 8601 timestamp", parser=NAME
        ) from None
    if moment.tzinfo is None:
        raise ParseError(f"samples[{index}].time {value!r} needs a UTC offset (e.g. Z)", parser=NAME)
    return in_utc(moment, f"samples[{index}].time {value!r}", parser=NAME)


def _column(sample: dict[str, Any], index: int, host: str) -> CounterColumn:
    if "counter" in sample and isinstance(sample["counter"], str) and sample["counter"].startswith("\\"):
        found = split_counter_path(sample["counter"])
        if found is None:
            raise ParseError(
                f"samples[{index}].counter {sample['counter']!r} is not a counter path", parser=NAME
            )
        path_host, obj, instance, counter = found
        return CounterColumn(host or path_host, obj, instance, counter, sample["counter"])
    object_name = sample.get("object")
    name = sample.get("counter_name") or sample.get("counter")
    if not isinstance(object_name, str) or not isinstance(name, str) or not object_name or not name:
        raise ParseError(
            f"samples[{index}] needs 'counter' (a perfmon path) or 'object' and 'counter_name'", parser=NAME
        )
    return CounterColumn(host, object_name, str(sample.get("instance") or ""), name, "")


def _value(value: Any, index: int) -> float:
    if not isinstance(value, bool) and isinstance(value, int | float):
        try:
            number = float(value)
        except OverflowError:  # an integer beyond any float
            number = math.inf
        if math.isfinite(number):
            return number
    raise ParseError(f"samples[{index}].value must be a finite number", parser=NAME)


class SamplesJsonParser:
    name: ClassVar[str] = NAME
    binary: ClassVar[bool] = False

    def detect(self, head_bytes: bytes, head_text: str) -> int:
        text = head_text.lstrip()
        return 95 if text.startswith("{") and '"samples"' in text[:65536] else 0

    def parse(self, source: Decoded | Opener, context: ParseContext) -> Parsed:
        assert isinstance(source, Decoded)
        try:
            host = context.host or _top_level_host(source)
            return _table(_samples(source), host)
        except (ijson.JSONError, ValueError):
            # Beyond what the event parser reads (NaN, Infinity, integers past 64 bits, which
            # the API refuses but Python's decoder takes): the whole document, as before.
            return _table_of_document(source, context)


def _table(samples: Iterable[tuple[int, Any]], host: str) -> Parsed:
    columns: dict[CounterColumn, int] = {}
    by_time: dict[datetime, dict[int, str]] = {}
    for index, sample in samples:
        if not isinstance(sample, dict):
            raise ParseError(f"samples[{index}] must be an object", parser=NAME)
        column = _column(sample, index, host)
        key = CounterColumn(column.host, column.object, column.instance, column.counter)
        position = columns.setdefault(key, len(columns))
        value = _value(sample.get("value"), index)
        by_time.setdefault(_time(sample.get("time"), index), {})[position] = repr(value)
    ordered = list(columns)

    def rows() -> Iterator[CounterRow]:
        for moment in sorted(by_time):
            values: list[str | None] = [None] * len(ordered)
            for position, value in by_time[moment].items():
                values[position] = value
            yield CounterRow(moment, values, 0)

    return Parsed(parser=NAME, tool="headroom-agent", counters=CounterTable(ordered, rows()))


def _table_of_document(source: Decoded, context: ParseContext) -> Parsed:
    with source.open_text() as handle:
        text = handle.read()
    try:
        body = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(f"invalid JSON: {exc.msg}", line=exc.lineno, column=exc.colno, parser=NAME) from None
    except ValueError:  # an integer too long for int()
        raise long_integer_error(text, 0, NAME) from None
    samples = body.get("samples") if isinstance(body, dict) else None
    if not isinstance(samples, list):
        raise ParseError("expected a JSON object with a 'samples' list", line=1, parser=NAME)
    return _table(enumerate(samples), context.host or str(body.get("host") or ""))


class _Utf8:
    """The decoded text as UTF-8 bytes, a chunk at a time, for the event parser."""

    def __init__(self, text: TextIO) -> None:
        self.text = text

    def read(self, size: int = -1) -> bytes:
        return self.text.read(size).encode("utf-8", "surrogatepass")


def _events(source: Decoded) -> Iterator[tuple[str, str, Any]]:
    """ijson's ``(prefix, event, value)`` events, their paths built in linear time, nesting bounded."""
    with source.open_text() as text:
        path: list[str] = []  # "item" for a list, the current key for an object ("" before the first)
        for event, value in ijson.basic_parse(_Utf8(text), use_float=True):
            if event == "map_key":
                yield ".".join(path[:-1]), event, value
                path[-1] = value
            elif event in ("start_map", "start_array"):
                yield ".".join(path), event, value
                if len(path) >= MAX_DEPTH:
                    raise ParseError(
                        f"JSON nested deeper than {MAX_DEPTH} levels; a batch is an object with a "
                        "'samples' list of flat objects",
                        parser=NAME,
                    )
                path.append("" if event == "start_map" else "item")
            elif event in ("end_map", "end_array"):
                path.pop()
                yield ".".join(path), event, value
            else:
                yield ".".join(path), event, value


def _top_level_host(source: Decoded) -> str:
    """The batch's ``host`` member (it may follow the samples), read without building anything."""
    host = ""
    for prefix, event, value in _events(source):
        if prefix == "host" and event in _SCALARS:
            host = str(value or "")
    return host


def _samples(source: Decoded) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each item of the ``samples`` list, built one at a time and no larger than ``MAX_SAMPLE_VALUES``."""
    listed = False
    builder: ijson.ObjectBuilder | None = None
    depth = values = 0
    index = -1
    for prefix, event, value in _events(source):
        if builder is None:
            if not prefix and event not in ("start_map", "end_map", "map_key"):
                break  # not an object: refused below
            if prefix == "samples" and event == "start_array":
                listed = True
            if prefix != "samples.item" or event == "end_array":
                continue
            index += 1
            if event != "start_map":
                yield index, value  # refused by the caller, as any item that is not an object
                continue
            builder, depth, values = ijson.ObjectBuilder(), 0, 0
        builder.event(event, value)
        values += 1
        if values > MAX_SAMPLE_VALUES:
            raise ParseError(
                f"samples[{index}] holds more than {MAX_SAMPLE_VALUES} JSON values; a sample is a time, "
                "a counter and a value",
                parser=NAME,
            )
        depth += event in ("start_map", "start_array")
        depth -= event in ("end_map", "end_array")
        if not depth:
            yield index, builder.value
            builder = None
    if not listed:
        raise ParseError("expected a JSON object with a 'samples' list", line=1, parser=NAME)

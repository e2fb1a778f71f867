"""Live counter samples posted by agents (``POST /api/v1/samples``).

The batch is JSON: ``{"samples": [{"time", "counter" | ("object",
"instance", "counter_name"), "value"}], "host", ...}``. ``counter`` is a
perfmon path (``\\\\HOST\\Object(Instance)\\Counter``); the agent maps psutil
figures to the canonical perfmon names so capacity views treat live samples
and perfmon logs alike. The batch is turned into the same wide counter table
a perfmon CSV gives.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from datetime import datetime
from typing import Any, ClassVar

from workers.pipeline.clock import in_utc
from workers.pipeline.decode import Decoded, Opener
from workers.pipeline.errors import ParseError
from workers.pipeline.jsontext import long_integer_error
from workers.pipeline.parsers.perfmon_csv import split_counter_path
from workers.pipeline.records import CounterColumn, CounterRow, CounterTable, Parsed
from workers.pipeline.registry import ParseContext, register

NAME = "samples"


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


@register
class SamplesJsonParser:
    name: ClassVar[str] = NAME
    binary: ClassVar[bool] = False

    def detect(self, head_bytes: bytes, head_text: str) -> int:
        text = head_text.lstrip()
        return 95 if text.startswith("{") and '"samples"' in text[:65536] else 0

    def parse(self, source: Decoded | Opener, context: ParseContext) -> Parsed:
        assert isinstance(source, Decoded)
        with source.open_text() as handle:
            text = handle.read()
        try:
            body = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ParseError(
                f"invalid JSON: {exc.msg}", line=exc.lineno, column=exc.colno, parser=NAME
            ) from None
        except ValueError:  # an integer too long for int()
            raise long_integer_error(text, 0, NAME) from None
        samples = body.get("samples") if isinstance(body, dict) else None
        if not isinstance(samples, list):
            raise ParseError("expected a JSON object with a 'samples' list", line=1, parser=NAME)
        host = context.host or str(body.get("host") or "")
        columns: dict[CounterColumn, int] = {}
        by_time: dict[datetime, dict[int, str]] = {}
        for index, sample in enumerate(samples):
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

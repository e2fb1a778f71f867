"""Timings: one row's fields -> a ``Measurement``, with the checks every layout shares."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any
from zoneinfo import ZoneInfo

from workers.pipeline.clock import in_utc
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.common.messages import show
from workers.pipeline.parsers.common.zones import upload_zone
from workers.pipeline.records import Measurement

PARSER = "timings"
REQUIRED = ("name", "started_at", "duration_ms")
MAX_REPETITION = 2**31 - 1  # the measurement table's integer columns (repetition, users)
UNITS_TO_MS: Mapping[str, float] = {
    "ms": 1.0,
    "us": 0.001,
    "µs": 0.001,
    "s": 1000.0,
    "sec": 1000.0,
    "min": 60_000.0,
    "h": 3_600_000.0,
}
NUMBER = re.compile(r"^[+-]?(\d+([.,]\d*)?|[.,]\d+)([eE][+-]?\d+)?$")


def error(message: str, line: int | None = None, column: int | None = None) -> ParseError:
    return ParseError(message, line=line, column=column, parser=PARSER)


@dataclass(frozen=True)
class Field:
    """One value of a row and where it sits. ``text`` is True for CSV cells."""

    value: Any
    line: int
    column: int | None
    text: bool = False


class Clock:
    """Turns ISO 8601 text into UTC, reading naive times in the upload's zone."""

    def __init__(self, zone_name: str | None) -> None:
        self.zone_name = zone_name

    @cached_property
    def zone(self) -> ZoneInfo | None:
        return upload_zone(self.zone_name, PARSER)

    def utc(self, text: str, where: str, line: int | None, column: int | None) -> datetime:
        try:
            moment = datetime.fromisoformat(text.strip())
        except ValueError:
            raise error(
                f"{where} must be an ISO 8601 timestamp such as 2015-07-01T10:15:00+10:00, got {show(text)}",
                line,
                column,
            ) from None
        if moment.tzinfo is None:
            zone = self.zone
            if zone is None:
                raise error(
                    f"{where} {show(text)} has no UTC offset; add one (e.g. Z or +10:00) "
                    "or upload the file with a timezone",
                    line,
                    column,
                )
            moment = moment.replace(tzinfo=zone)
        return in_utc(moment, f"{where} {show(text)}", parser=PARSER, line=line, column=column)


@dataclass
class Defaults:
    scenario: dict[str, str] | None = None
    host: str | None = None


@dataclass
class RowReader:
    """Builds one ``Measurement`` from named fields, or says what is wrong."""

    fields: Mapping[str, Field]
    line: int
    column: int | None
    clock: Clock
    defaults: Defaults = field(default_factory=Defaults)
    extra_dims: dict[str, Field] = field(default_factory=dict)

    def _present(self, key: str) -> Field | None:
        found = self.fields.get(key)
        if found is None or found.value is None or (found.text and not str(found.value).strip()):
            return None
        return found

    def _required(self, key: str, expected: str) -> Field:
        found = self._present(key)
        if found is None:
            cell = self.fields.get(key)
            if cell is not None:
                state = "empty" if cell.text else "null"
                raise error(f'"{key}" is {state}; expected {expected}', cell.line, cell.column)
            raise error(f'timing is missing "{key}" ({expected})', self.line, self.column)
        return found

    def measurement(self) -> Measurement:
        name = self._name()
        started = self._required("started_at", "an ISO 8601 timestamp")
        if not isinstance(started.value, str):
            raise error(
                f'"started_at" must be an ISO 8601 timestamp string, got {show(started.value)}',
                started.line,
                started.column,
            )
        time = self.clock.utc(started.value, '"started_at"', started.line, started.column)
        return Measurement(
            time=time,
            metric=name,
            value=self._duration(),
            unit="ms",
            repetition=self._whole("repetition", 1) or 1,
            users=self._whole("users", 0),
            subject=self._optional_text("subject") or "",
            scenario=self._scenario(),
            host=self._optional_text("host") or self.defaults.host,
            line=self.line,
        )

    def _name(self) -> str:
        found = self._required("name", 'what was timed, e.g. "logon" or "Excel launch"')
        if not isinstance(found.value, str) or not found.value.strip():
            raise error(
                f'"name" must be a non-empty string, got {show(found.value)}', found.line, found.column
            )
        return found.value.strip()

    def _duration(self) -> float:
        found = self._required("duration_ms", "the duration in milliseconds")
        value = to_number(found.value)
        if value is None or not math.isfinite(value) or value < 0:
            raise error(
                f'"duration_ms" must be a non-negative finite number, got {show(found.value)}',
                found.line,
                found.column,
            )
        unit = self._present("unit")
        if unit is None:
            return value
        factor = UNITS_TO_MS.get(str(unit.value).strip().lower()) if isinstance(unit.value, str) else None
        if factor is None:
            raise error(
                f'"unit" must be one of {", ".join(UNITS_TO_MS)}, got {show(unit.value)}',
                unit.line,
                unit.column,
            )
        return value * factor

    def _whole(self, key: str, least: int) -> int | None:
        """An optional whole number of at least ``least`` (``repetition``: 1; ``users``: 0); None when absent."""
        found = self._present(key)
        if found is None:
            return None
        value = found.value
        number: int | None = None
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif isinstance(value, float) and value.is_integer():
            number = int(value)
        elif isinstance(value, str) and value.strip().isdecimal():
            digits = value.strip()  # int() of thousands of digits is refused, and slow
            number = int(digits) if len(digits) <= 10 else MAX_REPETITION + 1
        if number is None or number < least:
            kind = "positive" if least > 0 else "non-negative"
            raise error(f'"{key}" must be a {kind} whole number, got {show(value)}', found.line, found.column)
        if number > MAX_REPETITION:
            raise error(
                f'"{key}" must be at most {MAX_REPETITION:,}, got {show(value)}',
                found.line,
                found.column,
            )
        return number

    def _optional_text(self, key: str) -> str | None:
        found = self._present(key)
        if found is None:
            return None
        if not isinstance(found.value, str):
            raise error(f'"{key}" must be a string, got {show(found.value)}', found.line, found.column)
        return found.value.strip() or None

    def _scenario(self) -> dict[str, str] | None:
        found = self._present("scenario")
        dims: dict[str, str] | None = None
        if found is not None:
            dims = scenario_dims(found)
        elif not self.extra_dims:
            return dict(self.defaults.scenario) if self.defaults.scenario else None
        dims = dict(dims or {})
        for key, cell in self.extra_dims.items():
            value = str(cell.value).strip()
            if not value:
                continue
            if key in dims and dims[key] != value:
                raise error(
                    f'"scenario.{key}" is {show(value)} but "scenario" sets {key}={show(dims[key])}',
                    cell.line,
                    cell.column,
                )
            dims[key] = value
        return dims or None


def to_number(value: Any, comma_decimal: bool = False) -> float | None:
    """A JSON number or decimal text; ``comma_decimal`` for culture-formatted output."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            return float(value)
        except OverflowError:  # an integer beyond any float
            return math.inf
    if not isinstance(value, str):
        return None
    text = value.strip()
    if comma_decimal and "," in text and "." not in text:
        text = text.replace(",", ".")
    if not NUMBER.match(text) or "," in text:
        return None
    return float(text)


def scenario_dims(found: Field) -> dict[str, str]:
    value = found.value
    expected = "an object of dimension names to values"
    if isinstance(value, str) and found.text:
        text = value.strip()
        if text.startswith("{"):
            try:
                value = json.loads(text)
            except json.JSONDecodeError as exc:
                raise error(
                    f'"scenario" is not valid JSON ({exc.msg} at character {exc.pos + 1})',
                    found.line,
                    found.column,
                ) from None
            except ValueError:  # an integer too long for int()
                raise error(
                    '"scenario" holds a number too long to read; expected an object of short values',
                    found.line,
                    found.column,
                ) from None
        else:
            dims: dict[str, str] = {}
            for part in text.split(";"):
                if not part.strip():
                    continue
                key, sep, dim = part.partition("=")
                if not sep or not key.strip():
                    raise error(
                        f'"scenario" must be a JSON object or k=v;k=v pairs, got {show(value)}',
                        found.line,
                        found.column,
                    )
                dims[key.strip()] = dim.strip()
            return dims
    if not isinstance(value, dict):
        raise error(f'"scenario" must be {expected}, got {show(value)}', found.line, found.column)
    dims = {}
    for key, dim in value.items():
        if isinstance(dim, bool):
            dims[key] = "true" if dim else "false"
        elif isinstance(dim, str | int | float):
            dims[key] = str(dim)
        else:
            raise error(
                f'"scenario" value of {key!r} must be a string or number, got {show(dim)}',
                found.line,
                found.column,
            )
    return dims

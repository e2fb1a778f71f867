"""Values inside an event record's JSON: attributes, text, numbers, flags and FILETIME ticks."""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
TICKS_PER_SECOND = 10_000_000  # FILETIME: 100 ns
TICKS_PER_MS = 10_000


def attribute(node: Any, name: str) -> Any:
    if isinstance(node, dict):
        attributes = node.get("#attributes")
        if isinstance(attributes, dict):
            return attributes.get(name)
    return None


def text_of(node: Any) -> Any:
    """A node's value: ``{"#attributes": ..., "#text": 100}`` -> ``100``."""
    return node.get("#text") if isinstance(node, dict) else node


def fields_of(event: Mapping[str, Any]) -> Mapping[str, Any]:
    """The named values of ``EventData`` (or of the one element inside ``UserData``)."""
    data = event.get("EventData")
    if isinstance(data, dict):
        return data
    user_data = event.get("UserData")
    if isinstance(user_data, dict):
        inner = [value for key, value in user_data.items() if not key.startswith("#")]
        if len(inner) == 1 and isinstance(inner[0], dict):
            return {key: value for key, value in inner[0].items() if not key.startswith("#")}
    return {}


def to_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip(), 0)
        except ValueError:
            return None
    return None


def to_number(value: Any) -> float | None:
    """A finite number from a typed or textual field, else ``None``."""
    if isinstance(value, bool):
        return None
    number: float | None = None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
    return number if number is not None and math.isfinite(number) else None


def truthy(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value != 0
    if isinstance(value, str):
        text = value.strip().lower()
        if text in ("1", "true"):
            return True
        if text in ("0", "false"):
            return False
    return None


def ticks_of(value: Any) -> int | None:
    """``2016-02-13T17:24:37.2574796Z`` as 100 ns ticks since 1970-01-01 UTC (more digits are rounded)."""
    if not isinstance(value, str) or not value:
        return None
    text = value.strip().removesuffix(" UTC")
    if text.endswith("Z"):
        text = text[:-1]
    offset = ""
    for sign in ("+", "-"):
        at = text.rfind(sign, 19)
        if at != -1:
            text, offset = text[:at], text[at:]
            break
    whole, _, fraction = text.partition(".")
    if fraction and not fraction.isdigit():
        return None
    digits = (fraction + "0" * 7)[:7]
    extra = fraction[7:]
    try:
        moment = datetime.fromisoformat(whole + (offset or "+00:00"))
    except ValueError:
        return None
    seconds = (moment - EPOCH) // timedelta(seconds=1)
    return seconds * TICKS_PER_SECOND + int(digits) + (1 if extra and extra[0] >= "5" else 0)


def from_ticks(ticks: int) -> datetime | None:
    """Ticks as aware UTC, rounded to the nearest microsecond (what ``timestamptz`` holds)."""
    try:
        return EPOCH + timedelta(microseconds=(ticks + 5) // 10)
    except OverflowError:
        return None


def timestamp_of(value: Any) -> datetime | None:
    """``2016-02-13T17:24:37.2574796Z`` (7 fraction digits allowed) as aware UTC, to the microsecond."""
    ticks = ticks_of(value)
    return from_ticks(ticks) if ticks is not None else None


def record_ticks(system_time: Any, written: Any) -> int | None:
    """The event's time in ticks: the record header's 7-digit time when it is ``SystemTime``'s
    microsecond (the renderer cuts ``SystemTime`` to 6 digits), else ``SystemTime``."""
    rendered = ticks_of(system_time)
    header = ticks_of(written)
    if header is not None and (rendered is None or header // 10 == rendered // 10):
        return header
    return rendered

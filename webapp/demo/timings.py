"""Timings: helpers the timing studies share (exact means in whole microseconds, time stamps, JSON rows)."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from decimal import Decimal

MELBOURNE = timezone(timedelta(hours=10))  # AEST in June, no daylight saving: app launch and logon


def whole_micros(milliseconds: Decimal) -> int:
    micros = milliseconds * 1000
    if micros != micros.to_integral_value():
        raise ValueError(f"{milliseconds} ms is not a whole number of microseconds")
    return int(micros)


def repetitions(rng: random.Random, mean_ms: Decimal, count: int, spread: float) -> list[int]:
    """``count`` durations in microseconds whose mean is exactly ``mean_ms``.

    Each differs from the mean by at most ``spread`` of it: all but the last
    are drawn, the last balances them, and a draw is repeated until the last
    one also stays within the spread.
    """
    mean = whole_micros(mean_ms)
    limit = int(mean * spread)
    while True:
        drawn = [rng.randint(-limit, limit) for _ in range(count - 1)]
        last = -sum(drawn)
        if abs(last) <= limit:
            return [mean + deviation for deviation in [*drawn, last]]


def ms(micros: int) -> float:
    return micros / 1000


def stamp(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds")


def json_rows(rows: Sequence[dict[str, object]]) -> list[str]:
    return [json.dumps(row, ensure_ascii=False) for row in rows]

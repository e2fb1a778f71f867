"""When a fio run started: its ``timestamp``, else its local ``time`` in the upload's zone, else ``started_at``."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from workers.pipeline.clock import in_utc
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.common.messages import show
from workers.pipeline.parsers.common.zones import upload_zone
from workers.pipeline.parsers.fio.document import PARSER, error

_CTIME = re.compile(r"^\s*[A-Za-z]{3}\s+([A-Za-z]{3})\s+(\d{1,2})\s+(\d{1,2}):(\d{2}):(\d{2})\s+(\d{4})\s*$")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


# --------------------------------------------------------------------------
# Time


def document_time(document: Mapping[str, Any], context: ParseContext, line: int) -> datetime:
    stamp = document.get("timestamp")
    if isinstance(stamp, int | float) and not isinstance(stamp, bool) and finite(stamp) and stamp > 0:
        try:
            return datetime.fromtimestamp(stamp, UTC)
        except (OverflowError, OSError, ValueError):  # past the year 9999
            raise error(
                f'"timestamp" {show(stamp)} is not a time fio can have written (epoch seconds)', line
            ) from None
    zone = upload_zone(context.timezone, PARSER)
    text = document.get("time")
    if isinstance(text, str) and zone is not None:
        moment = _ctime(text)
        if moment is not None:
            return _utc(moment, zone, line)
    started = context.extra.get("started_at", "").strip()
    if started:
        try:
            moment = datetime.fromisoformat(started)
        except ValueError:
            raise error(
                f"started_at must be an ISO 8601 timestamp such as 2015-07-01T10:15:00+10:00, got {started!r}"
            ) from None
        if moment.tzinfo is None and zone is None:
            raise error(
                f"started_at {started!r} has no UTC offset; add one (e.g. Z or +10:00) "
                "or upload the file with a timezone"
            )
        return _utc(moment, zone, None)
    if isinstance(text, str):
        raise error(
            f'fio wrote only a local "time" ({text!r}) and no "timestamp"; upload the file with '
            "its machine's timezone, or with started_at",
            line,
        )
    raise error(
        'this fio output holds no "timestamp" (old fio versions write none); upload it with started_at '
        "(ISO 8601, e.g. 2015-07-01T10:15:00+10:00)",
        line,
    )


def _utc(moment: datetime, zone: ZoneInfo | None, line: int | None) -> datetime:
    """``moment`` in UTC, read in ``zone`` when it has no offset of its own."""
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=zone)
    return in_utc(aware, f"the time {moment.isoformat()}", parser=PARSER, line=line)


def finite(value: float) -> bool:
    """``math.isfinite`` for JSON numbers, which may be integers beyond any float."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _ctime(text: str) -> datetime | None:
    """fio's ``time``: C ``ctime()`` text such as ``Tue Aug 25 12:57:13 2020``."""
    match = _CTIME.match(text)
    if match is None or match.group(1).lower() not in _MONTHS:
        return None
    month = _MONTHS.index(match.group(1).lower()) + 1
    day, hour, minute, second, year = (int(match.group(i)) for i in range(2, 7))
    try:
        return datetime(year, month, day, hour, minute, second)
    except ValueError:
        return None

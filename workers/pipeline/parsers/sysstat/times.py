"""sysstat's timestamps: UTC unless the file says otherwise, then read in the upload's zone.

``sadf`` writes UTC by default (``"tz": "UTC"`` or ``"utc": 1`` in ``-j``, a
``UTC`` suffix in ``-d``). With ``-T`` (local time of the reader) or ``-t``
(local time of the recording machine) it writes wall-clock times labelled
with a zone *abbreviation* -- and sysstat's own tests show it printing
``EST`` for a date in daylight time and ``CET`` for one in summer time, so
the label cannot be trusted. Such a file is read in the upload's
``timezone`` (an IANA name), with that zone's DST rules, and refused when
the upload gives none. ``sadf -U`` writes seconds since the epoch.
"""

from __future__ import annotations

from datetime import UTC, datetime

from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.common.zones import upload_zone

NAME = "sysstat"
UTC_LABELS = frozenset({"UTC", "GMT", "Z", "+0000"})


def to_utc(date: str, clock: str, zone: str, context: ParseContext, line: int) -> datetime:
    """``date`` (YYYY-MM-DD) and ``clock`` (HH:MM:SS) labelled ``zone`` ("" or "UTC" = UTC) as UTC."""
    try:
        local = datetime.strptime(f"{date.strip()} {clock.strip()}", "%Y-%m-%d %H:%M:%S")
    except ValueError:
        raise ParseError(
            f"the timestamp {date!r} {clock!r} is not a date and time like 2019-04-18 13:20:19",
            line=line,
            parser=NAME,
        ) from None
    if not zone or zone.upper() in UTC_LABELS:
        return local.replace(tzinfo=UTC)
    named = upload_zone(context.timezone, NAME, line)
    if named is None:
        raise ParseError(
            f"the file's times are local wall-clock times labelled {zone!r} (sadf -T or -t), and "
            "sysstat's zone labels are not reliable; give the upload's `timezone` (an IANA name such "
            "as America/New_York), or write the file with sadf without -T/-t (UTC)",
            line=line,
            parser=NAME,
        )
    return local.replace(tzinfo=named).astimezone(UTC)


def from_cell(text: str, context: ParseContext, line: int) -> datetime:
    """A ``sadf -d`` timestamp cell: ``2019-04-18 13:20:19 UTC``, a local time and label, or epoch seconds."""
    cell = text.strip()
    if cell.isdigit():
        return datetime.fromtimestamp(int(cell), UTC)
    parts = cell.split()
    if len(parts) not in (2, 3):
        raise ParseError(
            f"the timestamp {text!r} is not a date and time like '2019-04-18 13:20:19 UTC'",
            line=line,
            parser=NAME,
        )
    return to_utc(parts[0], parts[1], parts[2] if len(parts) == 3 else "", context, line)

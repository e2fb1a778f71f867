"""Converting a parsed time to UTC, the one way every parser does it."""

from __future__ import annotations

from datetime import UTC, datetime

from workers.pipeline.errors import ParseError


def in_utc(
    moment: datetime, what: str, *, parser: str, line: int | None = None, column: int | None = None
) -> datetime:
    """The aware ``moment`` in UTC; a ParseError naming ``what`` when it has no UTC equivalent.

    Python's datetimes end at year 1 and 9999, so a time at their edge in a
    zone east (or west) of UTC cannot be expressed in UTC.
    """
    try:
        return moment.astimezone(UTC)
    except OverflowError:
        raise ParseError(
            f"{what} is too close to year 1 or 9999 to express in UTC; expected a real time",
            line=line,
            column=column,
            parser=parser,
        ) from None

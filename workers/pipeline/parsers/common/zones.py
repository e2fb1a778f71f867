"""The upload's timezone: the zone a file's times without a UTC offset are read in."""

from __future__ import annotations

from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from workers.pipeline.errors import ParseError


def upload_zone(name: str | None, parser: str, line: int | None = None) -> ZoneInfo | None:
    """The IANA zone ``name`` (``None`` when the upload gave none); an unknown name is a ``ParseError``.

    The upload API checks the name already; this guards parsers called directly.
    """
    if not name:
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ParseError(
            f"unknown timezone {name!r}; expected an IANA name such as 'Europe/London'",
            line=line,
            parser=parser,
        ) from None

"""Perfmon CSV times: ``MM/DD/YYYY HH:MM:SS.fff`` local time, made UTC by the header's bias or the upload's zone."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.common.zones import upload_zone
from workers.pipeline.parsers.perfmon.layout import NAME, SIGNATURE, error

# "(PDH-CSV 4.0) (<zone name>)(<bias>)"; the zone name is free text.
_HEADER_ZONE = re.compile(r"\(PDH-CSV 4\.0\)\s*\((?P<zone>.*)\)\s*\((?P<bias>[+-]?\d{1,5})\)\s*\Z", re.ASCII)
_MAX_BIAS_MINUTES = 24 * 60 - 1

_TIME_FORMATS = ("%m/%d/%Y %H:%M:%S.%f", "%m/%d/%Y %H:%M:%S", "%m/%d/%Y %H:%M")


def time_zone(first_cell: str, context: ParseContext) -> Callable[[datetime], datetime]:
    """A function turning the file's naive local timestamps into UTC."""
    match = _HEADER_ZONE.match(first_cell)
    if match:
        bias = int(match["bias"])
        if abs(bias) > _MAX_BIAS_MINUTES:
            raise error(
                f"the header's time-zone bias {bias} minutes is not a valid UTC offset",
                line=1,
                column=1,
            )
        shift = timedelta(minutes=bias)  # UTC = local + bias

        def fixed(local: datetime) -> datetime:
            return (local + shift).replace(tzinfo=UTC)

        return fixed

    zone = upload_zone(context.timezone, NAME)
    if zone is None:
        zone_name = first_cell[len(SIGNATURE) :].strip(" ()")
        seen = f" (it names {zone_name!r} but no bias)" if zone_name else ""
        raise error(
            f"the file has no time-zone offset in its header{seen}; the upload must give "
            "`timezone` (an IANA name such as Europe/Moscow) so its local timestamps can be converted to UTC",
            line=1,
            column=1,
        )

    def zoned(local: datetime) -> datetime:
        # fold=0: an ambiguous wall-clock time (the repeated hour when DST
        # ends) is read as its first occurrence.
        return local.replace(tzinfo=zone).astimezone(UTC)

    return zoned


def local_time(text: str) -> datetime | None:
    """Parse ``MM/DD/YYYY HH:MM:SS[.fff]``; ``None`` when ``text`` is not such a timestamp."""
    if (
        len(text) == 23
        and text[2] == "/"
        and text[5] == "/"
        and text[10] == " "
        and text[13] == ":"
        and text[16] == ":"
        and text[19] == "."
    ):
        digits = text[0:2] + text[3:5] + text[6:10] + text[11:13] + text[14:16] + text[17:19] + text[20:23]
        if digits.isascii() and digits.isdigit():
            try:
                return datetime(
                    int(text[6:10]),
                    int(text[0:2]),
                    int(text[3:5]),
                    int(text[11:13]),
                    int(text[14:16]),
                    int(text[17:19]),
                    int(text[20:23]) * 1000,
                )
            except ValueError:
                return None
    if not text.isascii():
        return None
    for time_format in _TIME_FORMATS:
        try:
            return datetime.strptime(text.strip(), time_format)
        except ValueError:
            continue
    return None

"""Started/Ended times in any language robocopy prints them in, and their conversion to UTC."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.common.zones import upload_zone
from workers.pipeline.parsers.robocopy.labels import AM_MARKERS, MONTHS, PM_MARKERS, fold_text
from workers.pipeline.parsers.robocopy.numbers import PARSER, error, show

# Dates, matched on fold_text() output.
CLOCK = re.compile(r"(?<!\d)(\d{1,2}):(\d{2})(?::(\d{2}))?(?!\d)")
_AMPM = re.compile(r"(?<![^\W\d_])([ap])\.?\s?m\.?(?![^\W\d_])")
_CJK_DATE = re.compile(r"(\d{4})\s*[年년]\s*(\d{1,2})\s*[月월]\s*(\d{1,2})")
_NUMERIC_DATE = re.compile(r"(?<!\d)(\d{1,4})([./-]) ?(\d{1,2})\2 ?(\d{1,4})(?!\d)")
_MONTH_NAME = re.compile(
    r"(?<!\w)(" + "|".join(re.escape(name) for name in sorted(MONTHS, key=len, reverse=True)) + r")(?!\w)"
)
_WHOLE_NUMBER = re.compile(r"(?<!\d)\d+(?!\d)")


def _marker_pattern(markers: tuple[str, ...]) -> re.Pattern[str]:
    parts = []
    for marker in markers:
        escaped = re.escape(marker)
        # Ideographic markers stand out on their own; a letter (Arabic م) must be a word.
        parts.append(
            escaped if any("\u3000" <= ch <= "\u9fff" for ch in marker) else rf"(?<!\w){escaped}(?!\w)"
        )
    return re.compile("|".join(parts))


_AM = _marker_pattern(AM_MARKERS)
_PM = _marker_pattern(PM_MARKERS)


def _unmangle(text: str) -> str:
    """Undo UTF-8 text that was read as an OEM/ANSI code page (``┘è┘å╪º`` -> ``يناير``)."""
    if text.isascii():
        return text
    for code_page in ("cp437", "cp850", "cp1252"):
        try:
            fixed = text.encode(code_page).decode("utf-8")
        except UnicodeError:
            continue
        if fixed != text:
            return fixed
    return text


def _date(text: str) -> tuple[int, int, int] | None:
    cjk = _CJK_DATE.search(text)
    if cjk:
        return int(cjk[1]), int(cjk[2]), int(cjk[3])
    numeric = _NUMERIC_DATE.search(text)
    if numeric:
        first, sep, second, third = numeric[1], numeric[2], numeric[3], numeric[4]
        if len(first) == 4:
            return int(first), int(second), int(third)
        if len(third) != 4:
            return None
        if sep == "." or int(first) > 12 or first == second:
            return int(third), int(second), int(first)
        if int(second) > 12:
            return int(third), int(first), int(second)
        return None  # 03/04/2026: day or month first cannot be told
    months = {MONTHS[name] for name in _MONTH_NAME.findall(text)}
    if len(months) != 1:
        return None
    numbers = _WHOLE_NUMBER.findall(_MONTH_NAME.sub(" ", text))
    years = [number for number in numbers if len(number) == 4]
    days = [number for number in numbers if len(number) <= 2]
    if len(numbers) != 2 or len(years) != 1 or len(days) != 1:
        return None
    return int(years[0]), months.pop(), int(days[0])


def local_time(text: str) -> datetime | None:
    """A Started/Ended value as naive local time, or None when it is not a readable date."""
    folded = " ".join(fold_text(_unmangle(text)).split())
    clock = CLOCK.search(folded)
    if clock is None:
        return None
    hour, minute, second = int(clock[1]), int(clock[2]), int(clock[3] or 0)
    rest = f"{folded[: clock.start()]} {folded[clock.end() :]}"
    found = _date(rest)
    if found is None:
        return None
    ampm = _AMPM.search(rest)
    if (ampm and ampm[1] == "p") or (not ampm and _PM.search(rest)):
        if hour < 12:
            hour += 12
    elif ((ampm and ampm[1] == "a") or _AM.search(rest)) and hour == 12:
        hour = 0
    if not 1980 <= found[0] <= 2200:  # robocopy's era; also keeps UTC conversion in range
        return None
    try:
        return datetime(*found, hour, minute, second)
    except ValueError:
        return None


class Clock:
    """Turns the log's local times into UTC with the upload's timezone."""

    def __init__(self, context: ParseContext) -> None:
        self.zone = upload_zone(context.timezone, PARSER)
        self.started_text = context.extra.get("started_at", "").strip()

    def utc(self, local: datetime, line: int | None) -> datetime:
        if self.zone is None:
            raise error(
                "robocopy logs hold local wall-clock times without a UTC offset; upload it again with "
                "`timezone` (the IANA zone of the machine that wrote it, such as Europe/Paris; "
                "headroom-agent upload --timezone Europe/Paris) so they can be converted to UTC",
                line,
            )
        return local.replace(tzinfo=self.zone).astimezone(UTC)

    def upload_started(self) -> datetime | None:
        if not self.started_text:
            return None
        try:
            moment = datetime.fromisoformat(self.started_text)
        except ValueError:
            raise error(
                f"started_at must be an ISO 8601 timestamp such as 2026-03-17T12:09:37+08:00, "
                f"got {show(self.started_text)}"
            ) from None
        if moment.tzinfo is None:
            return self.utc(moment, None)
        return moment.astimezone(UTC)

"""FSCT cell values: numbers (a decimal comma when the table is not comma-separated), flags, times."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from workers.pipeline.clock import in_utc
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.common.zones import upload_zone
from workers.pipeline.parsers.fsct.layout import PARSER, Cell, Row, error

FLAGS = {"yes": 1.0, "y": 1.0, "true": 1.0, "1": 1.0, "no": 0.0, "n": 0.0, "false": 0.0, "0": 0.0}
MISSING = frozenset(("", "-", "n/a", "na", "--"))
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)$")
MAX_USERS = 2**31 - 1  # the step table's integer column


# --------------------------------------------------------------------------
# Values


@dataclass(frozen=True)
class Value:
    row: Row
    name: str

    @property
    def cell(self) -> Cell:
        return self.row.values[self.name]

    def fail(self, expected: str) -> ParseError:
        shown = self.cell.text if len(self.cell.text) <= 40 else self.cell.text[:37] + "..."
        return error(
            f"{_DESCRIPTIONS[self.name]} must be {expected}, got {shown!r}", self.row.line, self.cell.column
        )

    def check(self) -> None:
        if self.name in ("users", "throughput", "overload_pct"):
            self.number()
        elif self.name in ("errors", "errors_pct", "duration_ms", "duration_s", "response_ms"):
            self.optional_number()
        elif self.name == "overloaded":
            self.flag()
        elif self.name in ("started", "ended"):
            self.time(None)

    def _missing(self) -> bool:
        return self.cell.text.strip().lower() in MISSING

    def optional_number(self) -> float | None:
        if self._missing():
            return None
        return self.number()

    def number(self) -> float:
        text = self.cell.text.strip()
        percent = self.name in ("overload_pct", "errors_pct")
        if percent and text.endswith("%"):
            text = text[:-1].rstrip()
        if self.row.delimiter not in (",", None):
            text = text.replace(",", ".")
        if self.name == "users":
            # isdecimal, not isdigit: int() refuses superscripts ("²"), and thousands of digits.
            if not text.isdecimal():
                raise self.fail("a positive whole number")
            users = int(text) if len(text) <= 10 else MAX_USERS + 1
            if users <= 0:
                raise self.fail("a positive whole number")
            if users > MAX_USERS:
                raise self.fail(f"at most {MAX_USERS:,}")
            return float(users)
        if not _NUMBER.match(text):
            raise self.fail("a number" + (" (a percentage)" if percent else ""))
        value = float(text)
        if value < 0:
            raise self.fail("zero or more")
        if percent and value > 100:
            raise self.fail("a percentage from 0 to 100")
        if self.name in ("errors",) and not value.is_integer():
            raise self.fail("a whole number")
        return value

    def flag(self) -> float:
        found = FLAGS.get(self.cell.text.strip().lower())
        if found is None:
            raise self.fail("yes or no")
        return found

    def time(self, clock: Clock | None) -> datetime | None:
        if self._missing():
            return None
        text = self.cell.text.strip().replace(",", ".")
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            raise self.fail("an ISO 8601 date and time such as 2015-07-01T10:02:00+10:00") from None
        if clock is None:
            return moment
        return clock.localise(moment, self.row.line, self.cell.column)


_DESCRIPTIONS = {
    "users": "Users",
    "throughput": "Throughput",
    "overload_pct": "Overload",
    "overloaded": "Overloaded",
    "errors": "Errors",
    "errors_pct": "Errors [%]",
    "duration_ms": "Duration [ms]",
    "duration_s": "Duration [s]",
    "started": "Started",
    "ended": "Ended",
    "response_ms": "the response time",
}


class Clock:
    """Reads naive times in the upload's zone; refuses them when there is none."""

    def __init__(self, zone_name: str | None) -> None:
        self.zone_name = zone_name
        self._zone: ZoneInfo | None = None

    def zone(self, line: int | None, column: int | None) -> ZoneInfo:
        if self._zone is None:
            self._zone = upload_zone(self.zone_name, PARSER)
            if self._zone is None:
                raise error(
                    "FSCT times have no UTC offset; add one (e.g. +10:00) or upload the file with a timezone",
                    line,
                    column,
                )
        return self._zone

    def localise(self, moment: datetime, line: int | None, column: int | None) -> datetime:
        aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=self.zone(line, column))
        return in_utc(aware, f"the time {moment.isoformat()}", parser=PARSER, line=line, column=column)

    def utc(self, text: str, where: str, line: int | None, column: int | None) -> datetime:
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            raise error(
                f"{where} must be an ISO 8601 timestamp such as 2015-07-01T10:00:00+10:00, got {text!r}",
                line,
                column,
            ) from None
        return self.localise(moment, line, column)

"""Shared by the timings parser tests: parsing and detecting text, and sample documents of each layout."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from typing import Any

import pytest

from workers.pipeline.decode import decode
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.timings import TimingsParser
from workers.pipeline.records import Measurement, Parsed


def _parsed(data: bytes | str, **context: Any) -> Parsed:
    raw = data.encode() if isinstance(data, str) else data
    decoded = decode(lambda: io.BytesIO(raw))
    return TimingsParser().parse(decoded, ParseContext(**context))


def _parse(data: bytes | str, **context: Any) -> list[Measurement]:
    return list(_parsed(data, **context).measurements)


def _error(data: bytes | str, **context: Any) -> ParseError:
    with pytest.raises(ParseError) as info:
        _parse(data, **context)
    assert info.value.parser == "timings"
    return info.value


def _detect(data: bytes | str) -> int:
    raw = data.encode() if isinstance(data, str) else data
    decoded = decode(lambda: io.BytesIO(raw))
    return TimingsParser().detect(decoded.head_bytes, decoded.head_text)


def _utc(
    year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0, micro: int = 0
) -> datetime:
    return datetime(year, month, day, hour, minute, second, micro, tzinfo=UTC)


JSON_LIST = """[
  {"name": "logon", "started_at": "2015-07-01T10:15:00+10:00", "duration_ms": 38412.5,
   "repetition": 1, "scenario": {"smb_dialect": "2.1", "server_cpu_load": 50}, "host": "RDSH01"},
  {
    "name": "logon",
    "started_at": "2015-07-01T00:20:00Z",
    "duration_ms": 37990
  }
]
"""

MEASURE_COMMAND_BLOCK = """
Days              : 0
Hours             : 0
Minutes           : 0
Seconds           : 1
Milliseconds      : 234
Ticks             : 12345678
TotalDays         : 1.42889675925926E-05
TotalHours        : 0.000342935222222222
TotalMinutes      : 0.0205761133333333
TotalSeconds      : 1.2345678
TotalMilliseconds : {total}

"""


CSV = (
    "name,started_at,duration_ms,repetition,host,scenario,scenario.av,unit\r\n"
    'robocopy 1 GB,2015-03-02T09:00:00Z,16284,1,CLIENT01,"{""ca_share"": ""on""}",,\r\n'
    "robocopy 1 GB,2015-03-02T09:01:00+01:00,11.8,2,,ca_share=off;server_os=2012 R2,off,s\r\n"
    "\r\n"
    "logon,2015-03-02T09:05:00Z,38000,,,,,\r\n"
)

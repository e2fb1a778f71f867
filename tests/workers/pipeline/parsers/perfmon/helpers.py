"""Shared by the perfmon CSV parser tests: the real logs, decoding and parsing them, and editing one cell."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.paths import FIXTURES
from workers.pipeline.decode import Decoded, decode
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.perfmon import PerfmonCsvParser
from workers.pipeline.records import CounterColumn, CounterRow

PERFMON = FIXTURES / "perfmon_csv"
CHINA = PERFMON / "iversonlu_SystemPerformance_DCS_ChinaTZ_2633cols.csv"
INDIA = PERFMON / "narmadha_DataCollector01_LogicalDisk_IST.csv"
SRI_LANKA = PERFMON / "rajitharul_perfmon_SriLanka_1.2MB.csv"
RUSSIAN = PERFMON / "waflia_DataCollector01_ruRU_cp1251.csv"
DOTNET_COUNTERS = FIXTURES / "get_counter" / "martin11011_dotnet-counters_deDE.csv"

PARSER = PerfmonCsvParser()


def _decoded_file(path: Path, encoding: str | None = None) -> Decoded:
    return decode(lambda: path.open("rb"), encoding=encoding)


def _decoded_bytes(data: bytes, encoding: str | None = None) -> Decoded:
    return decode(lambda: io.BytesIO(data), encoding=encoding)


def _parse(source: Decoded, **context: Any) -> tuple[list[CounterColumn], list[CounterRow]]:
    parsed = PARSER.parse(source, ParseContext(**context))
    assert parsed.counters is not None
    return parsed.counters.columns, list(parsed.counters.rows)


def _error(source: Decoded, **context: Any) -> ParseError:
    with pytest.raises(ParseError) as info:
        _parse(source, **context)
    assert info.value.parser == "perfmon_csv"
    return info.value


def _at(when: str) -> datetime:
    return datetime.strptime(when, "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=UTC)


def _replace_cell(data: bytes, line: int, column: int, value: str) -> bytes:
    """``data`` with cell ``column`` (1-based) of physical ``line`` (1-based) set to ``value``."""
    lines = data.split(b"\n")
    cells = lines[line - 1].split(b'","')
    target = column - 1
    prefix = b'"' if target == 0 else b""
    suffix = b'"' if target == len(cells) - 1 else b""
    cells[target] = prefix + value.encode() + suffix
    lines[line - 1] = b'","'.join(cells)
    return b"\n".join(lines)

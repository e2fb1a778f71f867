"""Shared by the DiskSpd parser tests: the real sample files, and parsing them through validate()."""

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
from workers.pipeline.parsers.diskspd import DiskSpdTextParser, DiskSpdXmlParser
from workers.pipeline.records import Parsed
from workers.pipeline.validate import validate

TXT = FIXTURES / "diskspd_txt"
XML = FIXTURES / "diskspd_xml"
AZURE = TXT / "basilkisel_azure_A2_single.txt"
LENOVO = TXT / "basilkisel_lenovo_cp1251_wrapped80.txt"
ESCAPED = TXT / "vc_DiskSpd_2.0.21_32threads_escapedpath.txt"
NO_COMMAND = TXT / "vc_DiskSpd_2.0.21_ReadWrite_noCmdLine.txt"
V220 = TXT / "vc_DiskSpd_2.2.0_SingleGroup.txt"
MANY = TXT / "vc_DiskSpd_Write8k_utf8bom_manythreads.txt"
PKB = XML / "pkb_diskspd_result_2.0.21a_nolatency_2018.xml"
VC_XML = XML / "vc_Results_DiskSpd_2.0.21a.xml"
TEXT_FILES = sorted(TXT.glob("*"))
XML_FILES = sorted(XML.glob("*"))

TEXT = DiskSpdTextParser()
XMLP = DiskSpdXmlParser()
STARTED = "2015-07-01T10:15:00+10:00"
STARTED_UTC = datetime(2015, 7, 1, 0, 15, tzinfo=UTC)
MIB_TO_MB = 1024 * 1024 / 1_000_000
NINES = ["p99_9", "p99_99", "p99_999", "p99_9999", "p99_99999", "p99_999999", "p99_9999999"]
TEXT_POINTS = ["min", "p25", "p50", "p75", "p90", "p95", "p99", *NINES, "max"]


def _decoded(source: Path | bytes, encoding: str | None = None) -> Decoded:
    if isinstance(source, Path):
        return decode(lambda: source.open("rb"), encoding=encoding)
    return decode(lambda: io.BytesIO(source), encoding=encoding)


def _parse(parser: Any, source: Path | bytes | Decoded, **context: Any) -> Parsed:
    decoded = source if isinstance(source, Decoded) else _decoded(source)
    parsed = parser.parse(decoded, ParseContext(**context))
    # The shared checks every parser's output must pass (plausible times, finite values).
    parsed = validate(parsed, max_columns=20_000)
    parsed.measurements = list(parsed.measurements)
    return parsed


def _text(source: Path | bytes, **extra: str) -> Parsed:
    return _parse(TEXT, source, extra={"started_at": STARTED, **extra})


def _values(parsed: Parsed) -> dict[tuple[str, str], float]:
    found: dict[tuple[str, str], float] = {}
    for item in parsed.measurements:
        key = (item.subject, item.metric)
        assert key not in found, f"{key} twice in a one-run file"
        found[key] = item.value
    return found


def _error(parser: Any, source: Path | bytes | Decoded, **context: Any) -> ParseError:
    with pytest.raises(ParseError) as info:
        _parse(parser, source, **context)
    assert info.value.parser == parser.name
    assert info.value.line is not None
    return info.value


def _read_text(path: Path) -> str:
    decoded = _decoded(path)
    with decoded.open_text() as stream:
        return stream.read()

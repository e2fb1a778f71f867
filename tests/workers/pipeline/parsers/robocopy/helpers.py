"""Shared by the robocopy parser tests: the real logs and their true encodings, parsing, figures."""

from __future__ import annotations

import io
import re
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.paths import FIXTURES
from workers.pipeline.decode import Decoded, decode
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.robocopy import RobocopyParser
from workers.pipeline.records import Measurement, Parsed

ROBOCOPY = FIXTURES / "robocopy"
AHMAD = ROBOCOPY / "ahmad_robocopy_utf16_arabic_mojibake_truncated.log"
ANDREW = ROBOCOPY / "andrew_robocopy_utf16_NFL.log"
AOQTYII = ROBOCOPY / "aoqtyii_robocopy_zhCN_gbk_speed.log"
DARY = ROBOCOPY / "dary_robocopy_esDO_latin.log"
JW1210 = ROBOCOPY / "jw1210_robocopy_en_garbled_cjk_date.log"
MARKRAI = ROBOCOPY / "markrai_seen_robocopy_utf16.log"
MOHAMED = ROBOCOPY / "mohamed_robocopy_frFR_cp850.log"
RIPVANNWINKLER = ROBOCOPY / "ripvannwinkler_robocopy_NFL_MT16.log"
SOSUKIGARA = ROBOCOPY / "sosukigara_robocopy_jaJP_cp932_MT32_error.log"
VALENCALE = ROBOCOPY / "valencale_robocopy_ptBR_cp850.log"
WXZJT = ROBOCOPY / "wxzjt_robocopy_zhCN_gbk.log"

# The encoding each file really is in (from the MANIFEST, checked by reading them).
TRUE_ENCODING = {
    AHMAD: "utf-16",
    ANDREW: "utf-16",
    AOQTYII: "gbk",
    DARY: "cp850",
    JW1210: "utf-8",
    MARKRAI: "utf-16",
    MOHAMED: "cp850",
    RIPVANNWINKLER: "utf-8",
    SOSUKIGARA: "cp932",
    VALENCALE: "cp850",
    WXZJT: "gbk",
}

PARSER = RobocopyParser()
KIB, MIB, GIB, TIB = 1024, 1024**2, 1024**3, 1024**4
COLUMNS = ("total", "copied", "skipped", "mismatch", "failed", "extras")


def _decoded_file(path: Path, encoding: str | None = None) -> Decoded:
    return decode(lambda: path.open("rb"), encoding=encoding)


def _decoded_bytes(data: bytes, encoding: str | None = None) -> Decoded:
    return decode(lambda: io.BytesIO(data), encoding=encoding)


def _parse(source: Decoded, **context: Any) -> Parsed:
    parsed = PARSER.parse(source, ParseContext(**context))
    assert parsed.parser == "robocopy"
    assert parsed.tool == "robocopy"
    return parsed


def _error(source: Decoded, **context: Any) -> ParseError:
    with pytest.raises(ParseError) as info:
        list(PARSER.parse(source, ParseContext(**context)).measurements)
    assert info.value.parser == "robocopy"
    return info.value


def _figures(parsed: Parsed, job: str | None = None) -> dict[str, float]:
    found: dict[str, float] = {}
    for item in parsed.measurements:
        if (item.params or {}).get("job") == job:
            assert item.metric not in found, f"{item.metric} twice for job {job}"
            found[item.metric] = item.value
    return found


def _items(parsed: Parsed) -> list[Measurement]:
    return list(parsed.measurements)


def _row(figures: dict[str, float], kind: str) -> tuple[float, ...]:
    return tuple(figures[f"{kind}.{column}"] for column in COLUMNS)


def _text(path: Path) -> str:
    """The file read with its true encoding, without the pipeline's decode()."""
    return path.read_bytes().decode(TRUE_ENCODING[path])


def _line_of(text: str, pattern: str) -> int:
    """1-based number of the first line matching ``pattern`` (lines end at \\n only)."""
    for number, line in enumerate(text.split("\n"), start=1):
        if re.search(pattern, line):
            return number
    raise AssertionError(pattern)


def _bytes(number: str, unit: int) -> float:
    """``76.290 g`` as robocopy means it: the whole number nearest to 76.290 x 1024^3."""
    return float(round(Decimal(number) * unit))


def _utc(year: int, month: int, day: int, hour: int, minute: int, second: int) -> datetime:
    return datetime(year, month, day, hour, minute, second, tzinfo=UTC)


def _times(parsed: Parsed) -> set[datetime]:
    return {item.time for item in parsed.measurements}

"""Shared by the fio JSON parser tests: the real samples, parsing, and reading them without the parser."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from tests.paths import FIXTURES
from workers.pipeline.decode import decode
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.fio import FioJsonParser
from workers.pipeline.records import Measurement, Parsed

REAL = FIXTURES
FIO_FILES = sorted((REAL / "fio_json").glob("*"))
OTHER_FILES = sorted(p for p in REAL.glob("*/*") if p.parent.name != "fio_json")
STARTED = {"started_at": "2014-01-15T09:30:00+00:00"}
SIZES = {"4k": 4096, "16k": 16384, "256k": 262144}


def _parsed_path(path: Path, **context: Any) -> Parsed:
    decoded = decode(lambda: path.open("rb"))
    return FioJsonParser().parse(decoded, ParseContext(**context))


def _parsed(data: bytes | str, **context: Any) -> Parsed:
    raw = data.encode() if isinstance(data, str) else data
    decoded = decode(lambda: io.BytesIO(raw))
    return FioJsonParser().parse(decoded, ParseContext(**context))


def _error(data: bytes | str, **context: Any) -> ParseError:
    with pytest.raises(ParseError) as info:
        list(_parsed(data, **context).measurements)
    assert info.value.parser == "fio_json"
    return info.value


def _by_key(parsed: Parsed) -> dict[tuple[str, str], Measurement]:
    found: dict[tuple[str, str], Measurement] = {}
    for item in parsed.measurements:
        key = (item.subject, item.metric)
        assert key not in found, f"{key} twice"
        found[key] = item
    return found


def _document(path: Path) -> dict[str, Any]:
    """The fio JSON object in a sample, read without the parser."""
    text = path.read_text(encoding="utf-8-sig")
    value, _ = json.JSONDecoder().raw_decode(text, text.index("{"))
    return value


def _doc_text(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2)


def _base() -> dict[str, Any]:
    return _document(REAL / "fio_json" / "vc_fio-3.26_randwrite.json")

"""Detection of fio JSON output, and other formats left alone."""

from __future__ import annotations

import io
import math
from pathlib import Path

import pytest

from tests.workers.pipeline.parsers.fio.helpers import FIO_FILES, OTHER_FILES, STARTED, _parsed_path
from workers.pipeline.decode import decode
from workers.pipeline.parsers.fio import FioJsonParser


def _detect(data: bytes) -> int:
    decoded = decode(lambda: io.BytesIO(data))
    return FioJsonParser().detect(decoded.head_bytes, decoded.head_text)


@pytest.mark.parametrize("path", FIO_FILES, ids=lambda p: p.name)
def test_it_detects_fio_json(path: Path) -> None:
    assert _detect(path.read_bytes()) == 95


@pytest.mark.parametrize("path", OTHER_FILES, ids=lambda p: p.name)
def test_it_leaves_other_formats_alone(path: Path) -> None:
    assert _detect(path.read_bytes()) == 0


@pytest.mark.parametrize(
    "data",
    [
        b'[{"name": "logon", "started_at": "2015-07-01T10:15:00Z", "duration_ms": 1}]',
        b"name,started_at,duration_ms\nlogon,2015-07-01T10:15:00Z,1\n",
        b'"(PDH-CSV 4.0) (GMT Standard Time)(0)","\\\\FS01\\Processor(_Total)\\% Processor Time"\n',
    ],
)
def test_it_leaves_timings_and_perfmon_text_alone(data: bytes) -> None:
    assert _detect(data) == 0


def test_it_has_finite_values_only() -> None:
    for path in FIO_FILES:
        for item in _parsed_path(path, extra=STARTED).measurements:
            assert math.isfinite(item.value), (path.name, item.metric)

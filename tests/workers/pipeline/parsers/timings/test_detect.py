"""Detection of timings files by content."""

from __future__ import annotations

import pytest

from tests.workers.pipeline.parsers.timings.helpers import CSV, JSON_LIST, MEASURE_COMMAND_BLOCK, _detect


@pytest.mark.parametrize(
    ("data", "score"),
    [
        (JSON_LIST, 90),
        ('{"host": "C1", "timings": [{"name": "a", "started_at": "x", "duration_ms": 1}]}', 90),
        ('{"host": "C1", "timings": [{"name": "a", "started_at": "x", "duration_ms": 1}, {"name": ', 90),
        ('{"name": "a", "started_at": "x", "duration_ms": 1}\n{"name": "b"', 90),
        (CSV, 90),
        ("Name;Started_At;Duration_ms\n", 90),
        (MEASURE_COMMAND_BLOCK.format(total="1"), 80),
        ('"(PDH-CSV 4.0) (GMT Standard Time)(0)","\\\\FS01\\Memory\\Available MBytes"\n', 0),
        ('{"fio version": "fio-3.13", "jobs": []}', 0),
        ('[{"name": "a", "duration_ms": 1}]', 0),
        ("hello world\n", 0),
        ("", 0),
    ],
)
def test_it_detects_timings_from_content(data: str, score: int) -> None:
    assert _detect(data) == score

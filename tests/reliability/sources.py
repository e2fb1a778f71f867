"""The files the reliability tests upload, and how many rows each must produce."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from functools import cache

from tests.paths import FIXTURES
from workers.pipeline.decode import decode
from workers.pipeline.registry import ParseContext, detect_parser
from workers.pipeline.validate import validate


@dataclass(frozen=True)
class Source:
    name: str
    data: bytes
    fields: tuple[tuple[str, str], ...] = ()


def expected_rows(data: bytes, host: str = "H", timezone: str | None = None) -> int:
    """Rows an uninterrupted parse of ``data`` yields: the figure a crash must not change."""
    opener = lambda: io.BytesIO(data)  # noqa: E731
    decoded = decode(opener)
    parser = detect_parser(decoded.head_bytes, decoded.head_text)
    parsed = validate(
        parser.parse(opener if parser.binary else decoded, ParseContext(host=host, timezone=timezone)),
        max_columns=20_000,
    )
    rows = 0
    if parsed.counters is not None:
        rows += sum(sum(value is not None for value in row.values) for row in parsed.counters.rows)
    return rows + sum(1 for _ in parsed.measurements)


def timings_batch(campaign: str, index: int, items: int = 5) -> dict[str, object]:
    """A small timings batch whose bytes differ for every ``index``."""
    return {
        "campaign": campaign,
        "host": "CLIENT1",
        "scenario": {"av": "on"},
        "timings": [
            {
                "name": f"logon.{index}",
                "started_at": f"2015-06-01T09:{index // 60 % 60:02d}:{index % 60:02d}Z",
                "duration_ms": 1000 + index + repetition,
                "repetition": repetition,
            }
            for repetition in range(1, items + 1)
        ],
    }


@cache
def crash_sources() -> tuple[Source, ...]:
    """Perfmon traces big enough that an ingest takes a while, and a timings file."""
    perfmon = {
        "iversonlu_SystemPerformance_DCS_ChinaTZ_2633cols.csv": "",
        "rajitharul_perfmon_SriLanka_1.2MB.csv": "",
        "waflia_DataCollector01_ruRU_cp1251.csv": "Europe/Moscow",  # its header has no offset
        "narmadha_DataCollector01_LogicalDisk_IST.csv": "",
    }
    timings = json.dumps(timings_batch("-", 0, items=50)["timings"]).encode()
    return (
        *(
            Source(
                name, (FIXTURES / "perfmon_csv" / name).read_bytes(), (("role", "server"), ("timezone", zone))
            )
            for name, zone in perfmon.items()
        ),
        Source("timings.json", timings, (("scenario", '{"av": "off"}'),)),
    )

"""The files the reliability tests upload, and how many rows each must produce."""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass
from functools import cache

from tests.paths import FIXTURES
from workers.pipeline.decode import decode
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.registry import detect_parser
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


def on_machine(data: bytes, name: str) -> bytes:
    """A perfmon log as if another machine had recorded it: every ``\\\\HOST\\`` of its header renamed.

    Its counters belong to the machine its paths name, so the same log sent twice is the
    same machine's samples twice; a test that means two machines renames one. Any other
    file comes back as it is. Names are ASCII, so they are found and replaced in the
    file's own encoding (UTF-16 with its BOM, or any 8-bit one).
    """
    wide = data.startswith(b"\xff\xfe")
    codec = "utf-16-le" if wide else "latin-1"
    head = data[2:2000] if wide else data[:1000]
    text = head[: len(head) - len(head) % 2].decode(codec, "replace") if wide else head.decode(codec)
    machines = set(re.findall(r'"\\\\([^\\"]+)\\', text.split("\n", 1)[0]))
    for machine in machines:
        data = data.replace(f"\\\\{machine}\\".encode(codec), f"\\\\{name}\\".encode(codec))
    return data


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

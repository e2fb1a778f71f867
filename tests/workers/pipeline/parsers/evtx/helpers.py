"""Shared by the event log (.evtx) parser tests: the real logs, parsing them, and reading them independently.

``_records`` reads the library's XML rendering of each record with
ElementTree, independently of the parser's JSON path; ``_chunks`` and
``_rebuild`` build damaged variants from a real file's own header and 64 KiB
chunks.
"""

from __future__ import annotations

import io
import struct
import xml.etree.ElementTree as ET
import zlib
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import evtx

from tests.paths import FIXTURES
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.evtx import EvtxLogonParser
from workers.pipeline.records import Parsed

LOGS = FIXTURES / "eventlog_logon"
DIAGNOSTICS = LOGS / "aaronthopliss_DiagnosticsPerformance_Operational.evtx"
GP_SMALL = LOGS / "aaronthopliss_GroupPolicy_Operational_small.evtx"
GP_DIRTY = LOGS / "omerbenamram_GroupPolicy_Operational.evtx"
ALL_LOGS = sorted(LOGS.glob("*.evtx"))
NS = "{http://schemas.microsoft.com/win/2004/08/events/event}"
HEADER = 4096
CHUNK = 65536
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _parse_bytes(data: bytes, **context: Any) -> Parsed:
    return EvtxLogonParser().parse(lambda: io.BytesIO(data), ParseContext(**context))


def _utc(text: str) -> datetime:
    whole, _, fraction = text.rstrip("Z").partition(".")
    return datetime.fromisoformat(f"{whole}.{(fraction + '000000')[:6]}").replace(tzinfo=UTC)


def _ticks(text: str) -> int:
    """``2018-07-28T07:25:01.2572137Z UTC`` (the record header's time) -> 100 ns ticks since 1970."""
    whole, _, fraction = text.removesuffix(" UTC").rstrip("Z").partition(".")
    seconds = int((datetime.fromisoformat(whole).replace(tzinfo=UTC) - EPOCH).total_seconds())
    return seconds * 10_000_000 + int((fraction + "0000000")[:7])


def _from_ticks(ticks: int) -> datetime:
    """To the nearest microsecond, as the parser stores times."""
    return EPOCH + timedelta(microseconds=(ticks + 5) // 10)


@dataclass(frozen=True)
class _Record:
    record: int
    provider: str
    event_id: int
    time: datetime
    ticks: int  # the record header's 7-digit time
    activity: str
    computer: str
    data: dict[str, str]


def _records(path_or_bytes: Path | bytes) -> list[_Record]:
    """Every record, read from the library's XML rendering (not the parser's JSON path)."""
    source: Any = str(path_or_bytes) if isinstance(path_or_bytes, Path) else io.BytesIO(path_or_bytes)
    out = []
    for item in evtx.PyEvtxParser(source).records():
        root = ET.fromstring(item["data"])
        system = root.find(f"{NS}System")
        assert system is not None
        correlation = system.find(f"{NS}Correlation")
        out.append(
            _Record(
                record=int(system.findtext(f"{NS}EventRecordID") or 0),
                provider=system.find(f"{NS}Provider").get("Name", ""),
                event_id=int(system.findtext(f"{NS}EventID") or 0),
                time=_utc(system.find(f"{NS}TimeCreated").get("SystemTime", "")),
                ticks=_ticks(item["timestamp"]),
                activity=correlation.get("ActivityID", "") if correlation is not None else "",
                computer=system.findtext(f"{NS}Computer") or "",
                data={d.get("Name", ""): d.text or "" for d in root.iter(f"{NS}Data")},
            )
        )
    return out


def _chunks(data: bytes) -> list[bytes]:
    return [data[at : at + CHUNK] for at in range(HEADER, len(data), CHUNK)]


def _rebuild(header_from: bytes, chunks: list[bytes], flags: int = 0) -> bytes:
    """A well-formed EVTX file: ``header_from``'s header, fixed up to hold ``chunks``."""
    header = bytearray(header_from[:HEADER])
    struct.pack_into("<QQ", header, 8, 0, len(chunks) - 1)
    struct.pack_into("<H", header, 42, len(chunks))
    struct.pack_into("<I", header, 120, flags)
    struct.pack_into("<I", header, 124, zlib.crc32(bytes(header[:120])))
    return bytes(header) + b"".join(chunks)

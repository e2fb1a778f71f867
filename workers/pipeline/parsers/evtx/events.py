"""The ``.evtx`` file: its layout checks, and its records decoded when they may hold a figure."""

from __future__ import annotations

import json
import re
import shutil
import struct
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, BinaryIO

import evtx

from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.evtx.fields import (
    attribute,
    fields_of,
    from_ticks,
    record_ticks,
    text_of,
    to_int,
)

PARSER = "evtx_logon"
MAGIC = b"ElfFile\x00"
HEADER_BYTES = 4096
CHUNK_BYTES = 64 * 1024
COPY_BYTES = 1024 * 1024

GROUP_POLICY = "microsoft-windows-grouppolicy"
DIAGNOSTICS = "microsoft-windows-diagnostics-performance"
PROFILES = "microsoft-windows-user profiles service"
FOLDER_REDIRECTION = "microsoft-windows-folder redirection"
SHELL_CORE = "microsoft-windows-shell-core"

# The events worth decoding, by provider; every other record is only counted.
WANTED: Mapping[str, frozenset[int]] = {
    GROUP_POLICY: frozenset(
        (
            *range(4000, 4008),
            *range(7000, 7008),
            *range(8000, 8008),
            4016,
            5016,
            6016,
            7016,
            4018,
            5018,
            6018,
            7018,
        )
    ),
    DIAGNOSTICS: frozenset((100, 200)),
    PROFILES: frozenset((1, 2, 3, 4)),
    FOLDER_REDIRECTION: frozenset((1000, 1001, 1006)),
    SHELL_CORE: frozenset((9705,)),
}
_WANTED_PROVIDER = re.compile("|".join(re.escape(name) for name in WANTED), re.IGNORECASE)
_EVENT_ID = re.compile(r'"EventID":\s*(?:\{[^{}]*?"#text":\s*)?"?(\d+)')
_CHANNEL = re.compile(r'"Channel":\s*"((?:[^"\\]|\\.)*)"')


def error(message: str) -> ParseError:
    return ParseError(message, parser=PARSER)


# --------------------------------------------------------------------------
# The file: layout checks and records


@contextmanager
def seekable_stream(raw: BinaryIO) -> Iterator[BinaryIO]:
    """``raw`` itself when it can seek; else a temporary copy, streamed in 1 MiB pieces."""
    seekable = getattr(raw, "seekable", None)
    if callable(seekable) and seekable():
        yield raw
        return
    with tempfile.TemporaryFile(prefix="evtx-") as copy:
        shutil.copyfileobj(raw, copy, COPY_BYTES)
        copy.seek(0)
        yield copy


def check_layout(stream: BinaryIO) -> int:
    """The number of chunks; refuses what is not an EVTX file or was cut short.

    The dirty flag (header offset 120, bit 0) and a header chunk count lower
    than the file's are left alone: a log not cleanly closed is read whole.
    """
    stream.seek(0)
    header = stream.read(HEADER_BYTES)
    if not header:
        raise error("the file is empty")
    if not header.startswith(MAGIC):
        raise error("not a Windows event log (.evtx): the file does not start with the 'ElfFile' signature")
    size = stream.seek(0, 2)
    if size < HEADER_BYTES:
        raise error(
            f"the event log is truncated: it has {size} bytes, less than its {HEADER_BYTES}-byte file header"
        )
    chunks, cut = divmod(size - HEADER_BYTES, CHUNK_BYTES)
    if cut:
        raise error(
            f"the event log is truncated: after the {HEADER_BYTES}-byte header it holds {chunks} whole "
            f"64 KiB chunk(s) and {cut} bytes of a cut-off chunk; upload the complete .evtx file"
        )
    (header_chunks,) = struct.unpack_from("<H", header, 42)
    if chunks < header_chunks:
        raise error(
            f"the event log is truncated: its header lists {header_chunks} chunks but the file holds "
            f"only {chunks}; upload the complete .evtx file"
        )
    if chunks == 0:
        raise error("the event log holds no records (it has a file header and no chunks)")
    stream.seek(0)
    return chunks


@dataclass(frozen=True)
class Event:
    provider: str  # lower-cased
    channel: str
    event_id: int
    record: int
    time: datetime
    ticks: int  # the time in 100 ns ticks since 1970-01-01 UTC
    activity: str
    user: str
    computer: str
    data: Mapping[str, Any]


@dataclass(frozen=True)
class Other:
    """A readable record this module derives nothing from."""

    channel: str


@dataclass(frozen=True)
class Unreadable:
    message: str


def events(stream: BinaryIO, chunks: int) -> Iterator[Event | Other | Unreadable]:
    """Each record (decoded only if it may hold a figure); an ``Unreadable`` per damaged chunk."""
    try:
        parser = evtx.PyEvtxParser(stream, number_of_threads=1, indent=False)
        records = parser.records_json()
    except (RuntimeError, OSError, ValueError) as exc:
        raise error(f"could not read the event log: {exc}") from None
    failures = 0
    while True:
        try:
            record = next(records)
        except StopIteration:
            return
        except (RuntimeError, OSError, ValueError) as exc:
            # The library skips the damaged chunk and goes on with the next one.
            failures += 1
            yield Unreadable(str(exc))
            if failures > chunks:
                return
            continue
        if not isinstance(record, dict) or not isinstance(record.get("data"), str):
            continue
        yield _event(record) or Other(_channel(record["data"]))


def _channel(text: str) -> str:
    value = _after(text, '"Channel":"', '"')
    if value is not None and "\\" not in value:
        return value
    match = _CHANNEL.search(text)
    return str(json.loads(f'"{match.group(1)}"')) if match else ""


def _after(text: str, marker: str, end: str) -> str | None:
    """The text between ``marker`` and the next ``end`` (compact JSON, as the library writes it)."""
    at = text.find(marker)
    if at < 0:
        return None
    start = at + len(marker)
    stop = text.find(end, start)
    return text[start:stop] if stop >= 0 else None


def _worth_decoding(text: str) -> bool:
    """Cheap look at the JSON text: a provider and event id this module derives figures from."""
    provider = _after(text, '"Provider":{"#attributes":{"Name":"', '"')
    if provider is None:
        found = _WANTED_PROVIDER.search(text)
        provider = found.group(0) if found else ""
    wanted = WANTED.get(provider.lower())
    if wanted is None:
        return False
    event_id = _EVENT_ID.search(text)
    return event_id is None or int(event_id.group(1)) in wanted


def _event(record: Mapping[str, Any]) -> Event | None:
    """The record decoded, when it may hold a figure; else ``None``."""
    if not _worth_decoding(record["data"]):
        return None
    try:
        document = json.loads(record["data"])
        system = document["Event"]["System"]
    except (KeyError, TypeError, ValueError):
        return None
    if not isinstance(system, dict):
        return None
    event_id = to_int(text_of(system.get("EventID")))
    ticks = record_ticks(attribute(system.get("TimeCreated"), "SystemTime"), record.get("timestamp"))
    time = from_ticks(ticks) if ticks is not None else None
    if event_id is None or ticks is None or time is None:
        return None
    record_id = to_int(system.get("EventRecordID"))
    if record_id is None:
        record_id = to_int(record.get("event_record_id")) or 0
    return Event(
        provider=str(attribute(system.get("Provider"), "Name") or "").lower(),
        channel=str(system.get("Channel") or ""),
        event_id=event_id,
        record=record_id,
        time=time,
        ticks=ticks,
        activity=str(attribute(system.get("Correlation"), "ActivityID") or "").upper(),
        user=str(attribute(system.get("Security"), "UserID") or ""),
        computer=str(system.get("Computer") or ""),
        data=fields_of(document["Event"]),
    )

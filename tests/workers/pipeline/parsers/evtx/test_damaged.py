"""Event logs with nothing to derive, and damaged ones built from the real files' header and chunks."""

from __future__ import annotations

import random
import re
import struct
from pathlib import Path

import pytest

from tests.workers.pipeline.parsers.evtx.helpers import (
    ALL_LOGS,
    CHUNK,
    GP_DIRTY,
    GP_SMALL,
    HEADER,
    _chunks,
    _parse_bytes,
    _rebuild,
    _records,
)
from workers.pipeline.errors import ParseError


def _error(data: bytes) -> ParseError:
    with pytest.raises(ParseError) as caught:
        _parse_bytes(data)
    assert caught.value.parser == "evtx_logon"
    return caught.value


def test_a_log_without_timing_events_is_refused_naming_its_channels() -> None:
    data = GP_DIRTY.read_bytes()
    quiet = _rebuild(data, [_chunks(data)[5]])  # records 754..915: no 400x/800x
    assert len(_records(quiet)) == 162
    error = _error(quiet)
    assert "no logon or policy timings found in this event log" in error.message
    assert "(channels seen: Microsoft-Windows-GroupPolicy/Operational)" in error.message


def test_an_empty_file_is_refused() -> None:
    assert _error(b"").message == "the file is empty"


def test_garbage_is_refused_as_not_an_event_log() -> None:
    noise = random.Random(4).randbytes(CHUNK + HEADER)
    assert "not a Windows event log (.evtx)" in _error(noise).message
    assert "not a Windows event log (.evtx)" in _error(b"name,started_at,duration_ms\nlogon,x,1\n").message


@pytest.mark.parametrize("path", ALL_LOGS, ids=lambda p: p.name)
def test_a_log_cut_inside_a_chunk_is_refused_as_truncated(path: Path) -> None:
    data = path.read_bytes()
    for cut in (100, HEADER + 1, HEADER + CHUNK - 1, len(data) - 1):
        message = _error(data[:cut]).message
        assert message.startswith("the event log is truncated"), message


def test_a_log_cut_at_a_chunk_boundary_is_refused_by_its_header_chunk_count() -> None:
    data = GP_DIRTY.read_bytes()
    message = _error(data[: HEADER + 10 * CHUNK]).message
    assert message == (
        "the event log is truncated: its header lists 20 chunks but the file holds only 10; "
        "upload the complete .evtx file"
    )


def test_a_header_without_chunks_is_refused() -> None:
    data = bytearray(GP_SMALL.read_bytes()[:HEADER])
    struct.pack_into("<H", data, 42, 0)
    assert "holds no records" in _error(bytes(data)).message


def test_a_log_whose_every_chunk_is_garbage_is_refused() -> None:
    data = GP_SMALL.read_bytes()
    noise = random.Random(7).randbytes(CHUNK)
    assert "no event record could be read" in _error(data[:HEADER] + noise).message
    damaged = bytearray(data)
    damaged[HEADER + 600 : HEADER + 3000] = random.Random(8).randbytes(2400)
    message = _error(bytes(damaged)).message
    assert "no event record could be read" in message
    assert re.search(r"Failed to parse chunk", message), message


def test_one_damaged_chunk_is_skipped_and_counted() -> None:
    data = bytearray(GP_DIRTY.read_bytes())
    start = HEADER + 5 * CHUNK  # records 754..915, no policy pairs in them
    data[start + 1000 : start + 9000] = random.Random(5).randbytes(8000)
    parsed = _parse_bytes(bytes(data))
    assert len(list(parsed.measurements)) == 29
    assert parsed.run_attributes == {"evtx_unreadable_chunks": 1}

"""The Windows event log (.evtx) parser on the real logs in shared/fixtures.

Expected values are computed here from the files themselves: the library's
XML rendering of each record is read with ElementTree and start/end events
are paired by activity id, independently of the parser's JSON path.
"""

from __future__ import annotations

import io
import struct
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, BinaryIO

import pytest

from tests.workers.pipeline.parsers.evtx.helpers import (
    ALL_LOGS,
    CHUNK,
    DIAGNOSTICS,
    EPOCH,
    GP_DIRTY,
    GP_SMALL,
    HEADER,
    _chunks,
    _from_ticks,
    _parse_bytes,
    _rebuild,
    _records,
    _utc,
)
from workers.pipeline.decode import decode
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.evtx import EvtxLogonParser
from workers.pipeline.records import Measurement


def _parse(path: Path, **context: Any) -> list[Measurement]:
    parsed = EvtxLogonParser().parse(lambda: path.open("rb"), ParseContext(**context))
    assert parsed.parser == "evtx_logon"
    return list(parsed.measurements)


def _expected_policy_pairs(path_or_bytes: Path | bytes) -> list[tuple[int, str, datetime, float]]:
    """(start record, subject, start time, ms) for each 400x/800x pair with the same activity id."""
    records = _records(path_or_bytes)
    starts = {r.activity: r for r in records if 4000 <= r.event_id <= 4007}
    pairs = []
    for end in records:
        if 8000 <= end.event_id <= 8007 and end.activity in starts:
            start = starts.pop(end.activity)
            assert start.event_id == end.event_id - 4000
            subject = "computer" if start.data["IsMachine"] == "1" else "user"
            # the 7-digit times agree with the rendered 6-digit SystemTime ...
            assert start.ticks // 10 == int((start.time - EPOCH) / timedelta(microseconds=1))
            # ... and the duration is exact in 100 ns ticks
            ms = (end.ticks - start.ticks) / 10_000
            pairs.append((start.record, subject, _from_ticks(start.ticks), ms))
    return sorted(pairs)


def _gpo(measurements: list[Measurement]) -> list[Measurement]:
    return [m for m in measurements if m.metric == "gpo.processing_ms"]


@pytest.mark.parametrize("path", ALL_LOGS, ids=lambda p: p.name)
def test_it_claims_every_real_event_log(path: Path) -> None:
    head = path.read_bytes()[: 64 * 1024]
    assert EvtxLogonParser().detect(head, head.decode("latin-1")) == 100


def test_it_does_not_claim_text_or_other_binaries() -> None:
    parser = EvtxLogonParser()
    assert parser.detect(b"name,started_at,duration_ms\n", "name,started_at,duration_ms\n") == 0
    assert parser.detect(b"\x89PNG\r\n\x1a\n", "") == 0
    assert parser.detect(b"ElfChnk\x00", "ElfChnk") == 0
    assert parser.detect(b"", "") == 0


def test_the_fixture_set_is_the_one_these_tests_were_written_for() -> None:
    assert [p.name for p in ALL_LOGS] == [DIAGNOSTICS.name, GP_SMALL.name, GP_DIRTY.name]


# --------------------------------------------------------------------------
# Diagnostics-Performance: boot event 100


def test_it_reads_the_boot_timings_of_diagnostics_performance_event_100() -> None:
    (boot,) = [r for r in _records(DIAGNOSTICS) if r.event_id == 100]
    measurements = _parse(DIAGNOSTICS)
    by_metric = {m.metric: m for m in measurements}
    assert len(by_metric) == len(measurements) == 12
    for field, metric in (
        ("BootTime", "boot.total_ms"),
        ("MainPathBootTime", "boot.main_path_ms"),
        ("BootPostBootTime", "boot.post_boot_ms"),
        ("UserLogonWaitDuration", "boot.user_logon_wait_ms"),
        ("BootUserProfileProcessingTime", "boot.user_profile_ms"),
        ("BootMachineProfileProcessingTime", "boot.machine_profile_ms"),
        ("OSLoaderDuration", "boot.os_loader_ms"),
    ):
        assert by_metric[metric].value == float(boot.data[field])
    assert by_metric["boot.total_ms"].value == 149019.0
    assert by_metric["boot.main_path_ms"].value == 55220.0
    assert by_metric["boot.post_boot_ms"].value == 93799.0
    assert by_metric["boot.main_path_ms"].value + by_metric["boot.post_boot_ms"].value == 149019.0
    assert by_metric["boot.user_logon_wait_ms"].value == 4844.0
    assert by_metric["boot.user_profile_ms"].value == 1853.0
    assert by_metric["boot.machine_profile_ms"].value == 287.0
    # BootExplorerInitTime is 0 in this event (not measured): no row for it.
    assert boot.data["BootExplorerInitTime"] == "0"
    assert "boot.explorer_init_ms" not in by_metric
    started = datetime(2016, 2, 13, 17, 23, 53, 575067, tzinfo=UTC)
    assert _utc(boot.data["BootStartTime"]) == started
    assert {m.time for m in measurements} == {started}
    assert {(m.unit, m.repetition, m.subject) for m in measurements} == {("ms", 1, "")}


# --------------------------------------------------------------------------
# Group Policy: start/end pairs


def test_it_pairs_the_computer_and_user_policy_processing_of_the_small_log() -> None:
    measurements = _parse(GP_SMALL)
    assert [(m.subject, m.value, m.time, m.repetition) for m in measurements] == [
        # 17:24:45.7759761 -> 17:24:46.0168377 and 17:24:52.1956771 -> 17:24:52.4875453
        ("computer", 240.8616, datetime(2016, 2, 13, 17, 24, 45, 775976, tzinfo=UTC), 1),
        ("user", 291.8682, datetime(2016, 2, 13, 17, 24, 52, 195677, tzinfo=UTC), 1),
    ]
    expected = _expected_policy_pairs(GP_SMALL)
    assert [(s, t, v) for _, s, t, v in expected] == [(m.subject, m.time, m.value) for m in measurements]
    assert {(m.metric, m.unit) for m in measurements} == {("gpo.processing_ms", "ms")}
    # 47 records, of which exactly one 4000/8000 and one 4001/8001 pair.
    counts = Counter(r.event_id for r in _records(GP_SMALL))
    assert sum(counts.values()) == 47
    assert (counts[4000], counts[8000], counts[4001], counts[8001]) == (1, 1, 1, 1)


def test_it_pairs_all_29_policy_processings_of_the_larger_log() -> None:
    measurements = _parse(GP_DIRTY)
    expected = _expected_policy_pairs(GP_DIRTY)
    assert len(expected) == len(measurements) == 29
    got = [(m.subject, m.time, m.value) for m in measurements]
    assert got == [(s, t, v) for _, s, t, v in expected]
    assert Counter(m.subject for m in measurements) == {"computer": 13, "user": 16}
    assert [m.repetition for m in measurements if m.subject == "user"] == list(range(1, 17))
    assert [m.repetition for m in measurements if m.subject == "computer"] == list(range(1, 14))
    first = measurements[0]
    assert (first.subject, first.value) == ("computer", 148.444)
    assert first.time == datetime(2018, 7, 28, 7, 27, 54, 100426, tzinfo=UTC)
    longest = max(measurements, key=lambda m: m.value)
    assert (longest.subject, longest.value) == ("user", 888.6492)
    # started 20:46:47.8141666: to the nearest microsecond
    assert longest.time == datetime(2019, 2, 25, 20, 46, 47, 814167, tzinfo=UTC)
    assert round(sum(m.value for m in measurements), 3) == round(sum(v for *_, v in expected), 3)


def test_it_reads_a_log_that_was_not_cleanly_closed_to_its_last_record() -> None:
    data = GP_DIRTY.read_bytes()
    first_chunk, last_chunk, next_record = struct.unpack_from("<QQQ", data, 8)
    (header_chunks,) = struct.unpack_from("<H", data, 42)
    (flags,) = struct.unpack_from("<I", data, 120)
    # The header is stale: dirty flag set, 20 chunks and record 2988 next, but the
    # file holds 33 chunks and records up to 3028.
    assert flags & 1 == 1
    assert (first_chunk, last_chunk, next_record, header_chunks) == (0, 19, 2988, 20)
    assert (len(data) - HEADER) // CHUNK == 33
    assert max(r.record for r in _records(GP_DIRTY)) == 3028
    late = [m for m in _parse(GP_DIRTY) if m.time >= datetime(2019, 3, 20, tzinfo=UTC)]
    assert [(m.subject, m.value) for m in late] == [("computer", 38.6264), ("user", 58.7854)]


def test_a_dirty_flag_set_on_a_clean_log_changes_nothing() -> None:
    data = bytearray(GP_SMALL.read_bytes())
    assert struct.unpack_from("<I", data, 120)[0] == 0
    struct.pack_into("<I", data, 120, 1)
    assert [(m.subject, m.value) for m in _gpo(list(_parse_bytes(bytes(data)).measurements))] == [
        ("computer", 240.8616),
        ("user", 291.8682),
    ]


def test_an_end_event_whose_start_was_overwritten_uses_its_elapsed_seconds() -> None:
    # Chunk 1 of the larger log alone: its first event is the 8000 that ends the
    # 4000 at the end of chunk 0, and its last is a 4000 that chunk 2 ends.
    data = GP_DIRTY.read_bytes()
    part = _rebuild(data, [_chunks(data)[1]])
    records = _records(part)
    orphan = records[[r.event_id for r in records].index(8000)]
    assert orphan.record == 154 and orphan.data["PolicyElaspedTimeInSeconds"] == "0"
    measurements = list(_parse_bytes(part).measurements)
    assert len(measurements) == 6  # 5 pairs + the orphan end; the last start is left open
    first = measurements[0]
    assert (first.subject, first.value, first.time) == ("computer", 0.0, _from_ticks(orphan.ticks))
    paired = [(m.subject, m.time, m.value) for m in measurements[1:]]
    assert paired == [(s, t, v) for _, s, t, v in _expected_policy_pairs(part)]


def test_it_reads_several_channels_in_one_file() -> None:
    mixed = _rebuild(
        DIAGNOSTICS.read_bytes(), [_chunks(DIAGNOSTICS.read_bytes())[0], _chunks(GP_SMALL.read_bytes())[0]]
    )
    measurements = list(_parse_bytes(mixed).measurements)
    assert Counter(m.metric.split(".")[0] for m in measurements) == {"boot": 12, "gpo": 2}


# --------------------------------------------------------------------------
# Sources, hosts


def test_the_host_is_the_machine_that_logged_the_events_whoever_uploads() -> None:
    # Issue 20 item 10: a log collected from a client and sent by another machine.
    (computer,) = {r.computer for r in _records(GP_SMALL)}
    assert {m.host for m in _parse(GP_SMALL)} == {computer}
    assert {m.host for m in _parse(GP_SMALL, host="LOADGEN-01")} == {computer}


class _Pipe(io.RawIOBase):
    """A stream that cannot seek, as a socket-backed storage file might be."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def readinto(self, buffer: Any) -> int:
        chunk = self._data.read(min(len(buffer), 7000))
        buffer[: len(chunk)] = chunk
        return len(chunk)


def test_it_copies_a_stream_that_cannot_seek_and_reads_it_the_same() -> None:
    data = GP_DIRTY.read_bytes()

    def opener() -> BinaryIO:
        return _Pipe(data)  # type: ignore[return-value]

    parsed = EvtxLogonParser().parse(opener, ParseContext())
    assert [(m.subject, m.value) for m in parsed.measurements] == [
        (m.subject, m.value) for m in _parse(GP_DIRTY)
    ]


def test_it_accepts_a_decoded_source_too() -> None:
    decoded = decode(lambda: GP_SMALL.open("rb"))
    parsed = EvtxLogonParser().parse(decoded, ParseContext())
    assert [m.value for m in parsed.measurements] == [240.8616, 291.8682]

"""The Windows event log (.evtx) parser on the real logs in shared/fixtures.

Expected values are computed here from the files themselves: the library's
XML rendering of each record is read with ElementTree and start/end events
are paired by activity id, independently of the parser's JSON path. Damaged
variants are built from the real files' own header and 64 KiB chunks.
"""

from __future__ import annotations

import io
import random
import re
import struct
import xml.etree.ElementTree as ET
import zlib
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, BinaryIO

import evtx
import pytest

from tests.paths import FIXTURES
from workers.pipeline.decode import decode
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.evtx import EvtxLogonParser
from workers.pipeline.parsers.evtx.collector import Collector
from workers.pipeline.parsers.evtx.events import Event
from workers.pipeline.records import Measurement, Parsed

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


def _parse(path: Path, **context: Any) -> list[Measurement]:
    parsed = EvtxLogonParser().parse(lambda: path.open("rb"), ParseContext(**context))
    assert parsed.parser == "evtx_logon"
    return list(parsed.measurements)


def _error(data: bytes) -> ParseError:
    with pytest.raises(ParseError) as caught:
        _parse_bytes(data)
    assert caught.value.parser == "evtx_logon"
    return caught.value


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


def _gpo(measurements: list[Measurement]) -> list[Measurement]:
    return [m for m in measurements if m.metric == "gpo.processing_ms"]


# --------------------------------------------------------------------------
# Detection


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


# --------------------------------------------------------------------------
# Files with nothing to derive, damaged files


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


# --------------------------------------------------------------------------
# Pairing rules for channels no public sample exists of (User Profile Service,
# Folder Redirection, shutdown): events as the library's JSON gives them.

_T0 = datetime(2024, 5, 6, 8, 0, 0, tzinfo=UTC)


def _synthetic(
    provider: str, event_id: int, record: int, ms: float, *, activity: str = "", user: str = "", **data: Any
) -> Event:
    ticks = round(ms * 10_000)
    return Event(
        provider=provider.lower(),
        channel=f"{provider}/Operational",
        event_id=event_id,
        record=record,
        time=_from_ticks(_ticks(_T0.isoformat().removesuffix("+00:00")) + ticks),
        ticks=_ticks(_T0.isoformat().removesuffix("+00:00")) + ticks,
        activity=activity,
        user=user,
        computer="VDI-07",
        data=data,
    )


def _collect(*events: Event) -> list[Measurement]:
    collector = Collector()
    for event in events:
        collector.add(event)
    return collector.measurements()


def test_profile_load_and_unload_pair_per_user_and_session() -> None:
    ups = "Microsoft-Windows-User Profiles Service"
    measurements = _collect(
        _synthetic(ups, 1, 1, 0, user="S-1-5-21-1", Session=2),
        _synthetic(ups, 1, 2, 100, user="S-1-5-21-2", Session=3),
        _synthetic(ups, 2, 3, 1500, user="S-1-5-21-2", Session=3),
        _synthetic(ups, 2, 4, 2250, user="S-1-5-21-1", Session=2),
        _synthetic(ups, 3, 5, 60_000, user="S-1-5-21-1", Session=2),
        _synthetic(ups, 4, 6, 63_500, user="S-1-5-21-1", Session=2),
    )
    assert [(m.metric, m.value, m.repetition, m.time) for m in measurements] == [
        ("profile.load_ms", 2250.0, 1, _T0),
        ("profile.load_ms", 1400.0, 2, _T0 + timedelta(milliseconds=100)),
        ("profile.unload_ms", 3500.0, 1, _T0 + timedelta(seconds=60)),
    ]
    assert {m.host for m in measurements} == {"VDI-07"}


def test_profile_durations_keep_the_seventh_digit_of_the_events_ticks() -> None:
    ups = "Microsoft-Windows-User Profiles Service"
    measurements = _collect(
        _synthetic(ups, 1, 1, 0.0001, user="S-1-5-21-1", Session=2),  # 08:00:00.0000001
        _synthetic(ups, 2, 2, 1323.323, user="S-1-5-21-1", Session=2),  # 08:00:01.3233230
        _synthetic(ups, 3, 3, 60_000.0003, user="S-1-5-21-1", Session=2),
        _synthetic(ups, 4, 4, 60_146.958, user="S-1-5-21-1", Session=2),
    )
    # 1.3233229 s and 0.1469577 s, not 1323.323 / 146.957 cut to microseconds
    assert [(m.metric, m.value) for m in measurements] == [
        ("profile.load_ms", 1323.3229),
        ("profile.unload_ms", 146.9577),
    ]
    assert measurements[0].time == _T0  # 100 ns after _T0, to the nearest microsecond


def test_it_takes_the_seventh_digit_from_the_record_header_when_it_is_the_same_instant() -> None:
    from workers.pipeline.parsers.evtx.fields import record_ticks

    base = _ticks("2016-02-13T17:24:50Z")
    assert record_ticks("2016-02-13T17:24:50.865360Z", "2016-02-13T17:24:50.8653604Z UTC") == base + 8653604
    # a header time in another microsecond is not this event's: the rendered time wins
    assert record_ticks("2016-02-13T17:24:50.865360Z", "2016-02-13T17:24:51.0000001Z UTC") == base + 8653600
    assert record_ticks(None, "2016-02-13T17:24:50.8653604Z UTC") == base + 8653604


def test_folder_redirection_times_the_extension_and_the_sync_from_the_first_1006() -> None:
    fr = "Microsoft-Windows-Folder Redirection"
    measurements = _collect(
        _synthetic(fr, 1000, 10, 0, user="S-1-5-21-1"),
        _synthetic(fr, 1006, 11, 40, user="S-1-5-21-1", Folder="Documents"),
        _synthetic(fr, 1006, 12, 45, user="S-1-5-21-1", Folder="Desktop"),
        _synthetic(fr, 1001, 13, 95_040, user="S-1-5-21-1"),
    )
    assert [(m.metric, m.value, m.time) for m in measurements] == [
        ("folder_redirection.processing_ms", 95_040.0, _T0),
        ("folder_redirection.sync_ms", 95_000.0, _T0 + timedelta(milliseconds=40)),
    ]


def test_policy_events_without_activity_pair_in_order_and_failures_close_their_start() -> None:
    gp = "Microsoft-Windows-GroupPolicy"
    measurements = _collect(
        _synthetic(gp, 4006, 1, 0, IsMachine=1),
        _synthetic(gp, 7006, 2, 900, PolicyElaspedTimeInSeconds=0),
        _synthetic(gp, 4007, 3, 1000, IsMachine=0),
        _synthetic(gp, 8007, 4, 3500, PolicyElaspedTimeInSeconds=2),
        _synthetic(gp, 4005, 5, 5000, activity="A1"),
        _synthetic(gp, 4001, 6, 5100, activity="B2", IsMachine=0),
        _synthetic(gp, 8001, 7, 6100, activity="B2"),
        _synthetic(gp, 8005, 8, 7000, activity="A1"),
    )
    assert [(m.subject, m.value) for m in measurements] == [
        ("user periodic", 2500.0),
        ("user manual", 2000.0),  # no IsMachine: odd id -> user
        ("user", 1000.0),
    ]


def test_shutdown_event_200_gives_its_phases() -> None:
    dp = "Microsoft-Windows-Diagnostics-Performance"
    measurements = _collect(
        _synthetic(
            dp,
            200,
            1,
            0,
            ShutdownStartTime="2024-05-06T07:59:30.1234567Z",
            ShutdownTime=29_876,
            ShutdownUserSessionTime=1_200,
            ShutdownServicesTime=0,
            ShutdownKernelTime=640,
        )
    )
    assert [(m.metric, m.value) for m in measurements] == [
        ("shutdown.total_ms", 29_876.0),
        ("shutdown.user_session_ms", 1_200.0),
        ("shutdown.kernel_ms", 640.0),
    ]
    # 7 digits, rounded to the microsecond a timestamptz holds
    assert {m.time for m in measurements} == {datetime(2024, 5, 6, 7, 59, 30, 123457, tzinfo=UTC)}

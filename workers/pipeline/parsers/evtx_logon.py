"""Windows event logs (``.evtx``): boot, logon, profile and Group Policy durations.

Records are read with the ``evtx`` package (pyevtx-rs, a Rust EVTX parser
with wheels for Linux, Windows and macOS), which renders each record as
JSON; this module pairs start and end events and turns them into
``Measurement`` rows. Recognised from content: the file starts with the
EVTX signature ``ElfFile\\0``. Any channel may be uploaded (a saved
``.evtx`` holds one channel, an export may hold several); what is derived:

Group Policy (``Microsoft-Windows-GroupPolicy/Operational``)
    ``gpo.processing_ms``: a start event 4000..4007 paired with its end
    event 8000..8007 (same ``Correlation/@ActivityID``; the 4000-family id
    plus 4000 is the 8000-family id). The value is end time minus start
    time in the events' own 100 ns ticks (see *Fidelity* below). When the start is not in the file (overwritten by a circular
    log) or the clock went backwards, the end event's own
    ``PolicyElaspedTimeInSeconds`` (sic, whole seconds) is used and the time
    is the end time minus that. ``subject``: ``computer`` (4000/8000, boot)
    and ``user`` (4001/8001, logon); the other modes are ``computer network
    change``/``user network change`` (4002/4003), ``computer manual``/``user
    manual`` (4004/4005, gpupdate) and ``computer periodic``/``user
    periodic`` (4006/4007, background refresh). ``IsMachine`` decides
    computer vs user; the id's parity when it is absent. A failure event
    7000..7007 closes its start without a row.

Boot and shutdown (``Microsoft-Windows-Diagnostics-Performance/Operational``)
    Event 100 -> ``boot.total_ms`` (``BootTime``), ``boot.main_path_ms``
    (``MainPathBootTime``), ``boot.post_boot_ms`` (``BootPostBootTime``),
    ``boot.user_logon_wait_ms`` (``UserLogonWaitDuration``, time waiting at
    the logon screen), ``boot.user_profile_ms``
    (``BootUserProfileProcessingTime``), ``boot.machine_profile_ms``,
    ``boot.explorer_init_ms``, ``boot.kernel_init_ms``,
    ``boot.driver_init_ms``, ``boot.devices_init_ms``, ``boot.smss_init_ms``,
    ``boot.critical_services_init_ms``, ``boot.os_loader_ms``; event 200 ->
    ``shutdown.total_ms`` (``ShutdownTime``), ``shutdown.user_session_ms``,
    ``shutdown.user_policy_ms``, ``shutdown.user_profiles_ms``,
    ``shutdown.system_sessions_ms``, ``shutdown.pre_shutdown_notifications_ms``,
    ``shutdown.services_ms``, ``shutdown.kernel_ms``. Stamped with
    ``BootStartTime``/``ShutdownStartTime`` (else the event's time). A phase
    Windows reports as 0 was not measured and gives no row; the totals are
    always kept.

User profiles (``Microsoft-Windows-User Profile Service/Operational``)
    ``profile.load_ms``: event 1 (logon notification received) -> event 2
    (finished processing it); ``profile.unload_ms``: event 3 (logoff
    notification) -> event 4. Paired per user SID and session.

Folder redirection (``Microsoft-Windows-Folder Redirection/Operational``)
    ``folder_redirection.processing_ms``: event 1000 (extension started) ->
    1001 (extension finished); ``folder_redirection.sync_ms``: the first 1006
    of that run ("folder has to be redirected") -> 1001, the interval used to
    time a redirected folder's full sync. A run is one user SID's
    (``Security/@UserID``) events from 1000 (or its first 1006) to 1001.

Group Policy and profile events are paired by ``ActivityID`` when the end
carries one that a start had; otherwise with the latest open start of the
same kind that has no other activity. Boot, profile and folder redirection
rows have an empty ``subject``. ``repetition`` counts each (metric,
subject) in record-number order. ``host`` is the events' ``Computer``
unless the upload names a host. No public User Profile Service or Folder
Redirection log was at hand: those two follow the providers' event
definitions (message tables) and are tested on events built in the tests.

Fidelity: Windows stamps each record with a FILETIME (100 ns ticks, 7
fraction digits as Event Viewer prints them, ``17:24:50.8653604``). The
library renders ``TimeCreated/SystemTime`` cut to microseconds but also
hands out the record header's timestamp with all 7 digits; that one is used
when it falls in the same microsecond as ``SystemTime`` (it did in every
real log), else ``SystemTime``. Durations between two events are stored
exactly from the ticks (1.3233229 s -> 1323.3229 ms). Times (a row's start)
are rounded to the nearest microsecond, all a PostgreSQL ``timestamptz``
holds. Boot and shutdown phases (event 100/200) are whole milliseconds as
the event carries them; ``BootStartTime``/``ShutdownStartTime`` come
rendered to microseconds. ``PolicyElaspedTimeInSeconds`` is whole seconds,
stored times 1000.

Damaged files: a log not cleanly closed (header flag 0x1 "dirty", a stale
chunk count in the header) is read to its last chunk. A file cut short (its
size is not the 4 KiB header plus whole 64 KiB chunks, or it holds fewer
chunks than its header lists) is refused. A chunk the library cannot read is
skipped and counted in the run attribute ``evtx_unreadable_chunks``; a file
with no readable record is refused.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import struct
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, BinaryIO, ClassVar

import evtx

from workers.pipeline.decode import Decoded, Opener
from workers.pipeline.errors import ParseError
from workers.pipeline.records import Measurement, Parsed
from workers.pipeline.registry import ParseContext, register

PARSER = "evtx_logon"
MAGIC = b"ElfFile\x00"
HEADER_BYTES = 4096
CHUNK_BYTES = 64 * 1024
COPY_BYTES = 1024 * 1024
CHANNELS_SHOWN = 8
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
TICKS_PER_SECOND = 10_000_000  # FILETIME: 100 ns
TICKS_PER_MS = 10_000

GROUP_POLICY = "microsoft-windows-grouppolicy"
DIAGNOSTICS = "microsoft-windows-diagnostics-performance"
PROFILES = "microsoft-windows-user profiles service"
FOLDER_REDIRECTION = "microsoft-windows-folder redirection"

# The events worth decoding, by provider; every other record is only counted.
WANTED: Mapping[str, frozenset[int]] = {
    GROUP_POLICY: frozenset((*range(4000, 4008), *range(7000, 7008), *range(8000, 8008))),
    DIAGNOSTICS: frozenset((100, 200)),
    PROFILES: frozenset((1, 2, 3, 4)),
    FOLDER_REDIRECTION: frozenset((1000, 1001, 1006)),
}
_WANTED_PROVIDER = re.compile("|".join(re.escape(name) for name in WANTED), re.IGNORECASE)
_EVENT_ID = re.compile(r'"EventID":\s*(?:\{[^{}]*?"#text":\s*)?"?(\d+)')
_CHANNEL = re.compile(r'"Channel":\s*"((?:[^"\\]|\\.)*)"')

# Group Policy processing modes by (event id - 4000) // 2.
GP_MODES = ("", "network change", "manual", "periodic")
GP_ELAPSED_KEYS = ("PolicyElaspedTimeInSeconds", "PolicyElapsedTimeInSeconds")

BOOT_FIELDS: tuple[tuple[str, str], ...] = (
    ("BootTime", "boot.total_ms"),
    ("MainPathBootTime", "boot.main_path_ms"),
    ("BootPostBootTime", "boot.post_boot_ms"),
    ("UserLogonWaitDuration", "boot.user_logon_wait_ms"),
    ("BootUserProfileProcessingTime", "boot.user_profile_ms"),
    ("BootMachineProfileProcessingTime", "boot.machine_profile_ms"),
    ("BootExplorerInitTime", "boot.explorer_init_ms"),
    ("BootKernelInitTime", "boot.kernel_init_ms"),
    ("BootDriverInitTime", "boot.driver_init_ms"),
    ("BootDevicesInitTime", "boot.devices_init_ms"),
    ("BootSmssInitTime", "boot.smss_init_ms"),
    ("BootCriticalServicesInitTime", "boot.critical_services_init_ms"),
    ("OSLoaderDuration", "boot.os_loader_ms"),
)
SHUTDOWN_FIELDS: tuple[tuple[str, str], ...] = (
    ("ShutdownTime", "shutdown.total_ms"),
    ("ShutdownUserSessionTime", "shutdown.user_session_ms"),
    ("ShutdownUserPolicyTime", "shutdown.user_policy_ms"),
    ("ShutdownUserProfilesTime", "shutdown.user_profiles_ms"),
    ("ShutdownSystemSessionsTime", "shutdown.system_sessions_ms"),
    ("ShutdownPreShutdownNotificationsTime", "shutdown.pre_shutdown_notifications_ms"),
    ("ShutdownServicesTime", "shutdown.services_ms"),
    ("ShutdownKernelTime", "shutdown.kernel_ms"),
)
# Totals keep a reported 0; a 0 sub-phase means "not measured".
KEEP_ZERO = frozenset(("boot.total_ms", "shutdown.total_ms"))


@register
class EvtxLogonParser:
    """Boot, logon, profile and Group Policy durations from a Windows ``.evtx`` log."""

    name: ClassVar[str] = PARSER
    binary: ClassVar[bool] = True

    def detect(self, head_bytes: bytes, head_text: str) -> int:
        return 100 if head_bytes.startswith(MAGIC) else 0

    def parse(self, source: Decoded | Opener, context: ParseContext) -> Parsed:
        opener = source.opener if isinstance(source, Decoded) else source
        collector = _Collector()
        with opener() as raw, _seekable(raw) as stream:
            chunks = _check_layout(stream)
            for event in _events(stream, chunks):
                collector.add(event)
        if collector.records == 0:
            detail = f" ({collector.first_error})" if collector.first_error else ""
            raise _error(
                f"no event record could be read from this event log{detail}; "
                f"it has {chunks} chunk(s) but none holds readable records"
            )
        measurements = collector.measurements(context.host)
        if not measurements:
            raise _error(
                "no logon or policy timings found in this event log "
                f"(channels seen: {collector.channels_text()}); expected Group Policy start/end events "
                "(4000-4007/8000-8007), Diagnostics-Performance boot/shutdown events (100/200), "
                "User Profile Service logon/logoff events (1-4) or Folder Redirection events (1000/1001/1006)"
            )
        attributes: dict[str, Any] = {}
        if collector.unreadable:
            attributes["evtx_unreadable_chunks"] = collector.unreadable
        return Parsed(parser=PARSER, tool="evtx", measurements=measurements, run_attributes=attributes)


def _error(message: str) -> ParseError:
    return ParseError(message, parser=PARSER)


# --------------------------------------------------------------------------
# The file: layout checks and records


@contextmanager
def _seekable(raw: BinaryIO) -> Iterator[BinaryIO]:
    """``raw`` itself when it can seek; else a temporary copy, streamed in 1 MiB pieces."""
    seekable = getattr(raw, "seekable", None)
    if callable(seekable) and seekable():
        yield raw
        return
    with tempfile.TemporaryFile(prefix="evtx-") as copy:
        shutil.copyfileobj(raw, copy, COPY_BYTES)
        copy.seek(0)
        yield copy


def _check_layout(stream: BinaryIO) -> int:
    """The number of chunks; refuses what is not an EVTX file or was cut short.

    The dirty flag (header offset 120, bit 0) and a header chunk count lower
    than the file's are left alone: a log not cleanly closed is read whole.
    """
    stream.seek(0)
    header = stream.read(HEADER_BYTES)
    if not header:
        raise _error("the file is empty")
    if not header.startswith(MAGIC):
        raise _error("not a Windows event log (.evtx): the file does not start with the 'ElfFile' signature")
    size = stream.seek(0, 2)
    if size < HEADER_BYTES:
        raise _error(
            f"the event log is truncated: it has {size} bytes, less than its {HEADER_BYTES}-byte file header"
        )
    chunks, cut = divmod(size - HEADER_BYTES, CHUNK_BYTES)
    if cut:
        raise _error(
            f"the event log is truncated: after the {HEADER_BYTES}-byte header it holds {chunks} whole "
            f"64 KiB chunk(s) and {cut} bytes of a cut-off chunk; upload the complete .evtx file"
        )
    (header_chunks,) = struct.unpack_from("<H", header, 42)
    if chunks < header_chunks:
        raise _error(
            f"the event log is truncated: its header lists {header_chunks} chunks but the file holds "
            f"only {chunks}; upload the complete .evtx file"
        )
    if chunks == 0:
        raise _error("the event log holds no records (it has a file header and no chunks)")
    stream.seek(0)
    return chunks


@dataclass(frozen=True)
class _Event:
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
class _Other:
    """A readable record this module derives nothing from."""

    channel: str


@dataclass(frozen=True)
class _Unreadable:
    message: str


def _events(stream: BinaryIO, chunks: int) -> Iterator[_Event | _Other | _Unreadable]:
    """Each record (decoded only if it may hold a figure); an ``_Unreadable`` per damaged chunk."""
    try:
        parser = evtx.PyEvtxParser(stream, number_of_threads=1, indent=False)
        records = parser.records_json()
    except (RuntimeError, OSError, ValueError) as exc:
        raise _error(f"could not read the event log: {exc}") from None
    failures = 0
    while True:
        try:
            record = next(records)
        except StopIteration:
            return
        except (RuntimeError, OSError, ValueError) as exc:
            # The library skips the damaged chunk and goes on with the next one.
            failures += 1
            yield _Unreadable(str(exc))
            if failures > chunks:
                return
            continue
        if not isinstance(record, dict) or not isinstance(record.get("data"), str):
            continue
        yield _event(record) or _Other(_channel(record["data"]))


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


def _event(record: Mapping[str, Any]) -> _Event | None:
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
    event_id = _int(_text(system.get("EventID")))
    ticks = _record_ticks(_attribute(system.get("TimeCreated"), "SystemTime"), record.get("timestamp"))
    time = _from_ticks(ticks) if ticks is not None else None
    if event_id is None or ticks is None or time is None:
        return None
    record_id = _int(system.get("EventRecordID"))
    if record_id is None:
        record_id = _int(record.get("event_record_id")) or 0
    return _Event(
        provider=str(_attribute(system.get("Provider"), "Name") or "").lower(),
        channel=str(system.get("Channel") or ""),
        event_id=event_id,
        record=record_id,
        time=time,
        ticks=ticks,
        activity=str(_attribute(system.get("Correlation"), "ActivityID") or "").upper(),
        user=str(_attribute(system.get("Security"), "UserID") or ""),
        computer=str(system.get("Computer") or ""),
        data=_fields(document["Event"]),
    )


def _attribute(node: Any, name: str) -> Any:
    if isinstance(node, dict):
        attributes = node.get("#attributes")
        if isinstance(attributes, dict):
            return attributes.get(name)
    return None


def _text(node: Any) -> Any:
    """A node's value: ``{"#attributes": ..., "#text": 100}`` -> ``100``."""
    return node.get("#text") if isinstance(node, dict) else node


def _fields(event: Mapping[str, Any]) -> Mapping[str, Any]:
    """The named values of ``EventData`` (or of the one element inside ``UserData``)."""
    data = event.get("EventData")
    if isinstance(data, dict):
        return data
    user_data = event.get("UserData")
    if isinstance(user_data, dict):
        inner = [value for key, value in user_data.items() if not key.startswith("#")]
        if len(inner) == 1 and isinstance(inner[0], dict):
            return {key: value for key, value in inner[0].items() if not key.startswith("#")}
    return {}


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip(), 0)
        except ValueError:
            return None
    return None


def _number(value: Any) -> float | None:
    """A finite number from a typed or textual field, else ``None``."""
    if isinstance(value, bool):
        return None
    number: float | None = None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
    return number if number is not None and math.isfinite(number) else None


def _truthy(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value != 0
    if isinstance(value, str):
        text = value.strip().lower()
        if text in ("1", "true"):
            return True
        if text in ("0", "false"):
            return False
    return None


def _ticks(value: Any) -> int | None:
    """``2016-02-13T17:24:37.2574796Z`` as 100 ns ticks since 1970-01-01 UTC (more digits are rounded)."""
    if not isinstance(value, str) or not value:
        return None
    text = value.strip().removesuffix(" UTC")
    if text.endswith("Z"):
        text = text[:-1]
    offset = ""
    for sign in ("+", "-"):
        at = text.rfind(sign, 19)
        if at != -1:
            text, offset = text[:at], text[at:]
            break
    whole, _, fraction = text.partition(".")
    if fraction and not fraction.isdigit():
        return None
    digits = (fraction + "0" * 7)[:7]
    extra = fraction[7:]
    try:
        moment = datetime.fromisoformat(whole + (offset or "+00:00"))
    except ValueError:
        return None
    seconds = (moment - EPOCH) // timedelta(seconds=1)
    return seconds * TICKS_PER_SECOND + int(digits) + (1 if extra and extra[0] >= "5" else 0)


def _from_ticks(ticks: int) -> datetime | None:
    """Ticks as aware UTC, rounded to the nearest microsecond (what ``timestamptz`` holds)."""
    try:
        return EPOCH + timedelta(microseconds=(ticks + 5) // 10)
    except OverflowError:
        return None


def _timestamp(value: Any) -> datetime | None:
    """``2016-02-13T17:24:37.2574796Z`` (7 fraction digits allowed) as aware UTC, to the microsecond."""
    ticks = _ticks(value)
    return _from_ticks(ticks) if ticks is not None else None


def _record_ticks(system_time: Any, written: Any) -> int | None:
    """The event's time in ticks: the record header's 7-digit time when it is ``SystemTime``'s
    microsecond (the renderer cuts ``SystemTime`` to 6 digits), else ``SystemTime``."""
    rendered = _ticks(system_time)
    header = _ticks(written)
    if header is not None and (rendered is None or header // 10 == rendered // 10):
        return header
    return rendered


# --------------------------------------------------------------------------
# Pairing events into durations


@dataclass(frozen=True)
class _Row:
    record: int
    order: int
    metric: str
    subject: str
    time: datetime
    value: float
    computer: str


class _Starts:
    """Open start events waiting for their end, by activity id and in arrival order."""

    def __init__(self) -> None:
        self._open: dict[int, _Event] = {}
        self._by_activity: dict[str, list[int]] = {}

    def open(self, event: _Event) -> None:
        self._open[event.record] = event
        if event.activity:
            self._by_activity.setdefault(event.activity, []).append(event.record)

    def close(self, end: _Event, same_kind: Callable[[_Event], bool]) -> _Event | None:
        """The start ``end`` belongs to: same activity id, else the latest one with no other activity."""
        for record in self._by_activity.get(end.activity, ()) if end.activity else ():
            if same_kind(self._open[record]):
                return self._pop(record)
        for record in reversed(self._open):
            start = self._open[record]
            if same_kind(start) and (not start.activity or not end.activity):
                return self._pop(record)
        return None

    def _pop(self, record: int) -> _Event:
        start = self._open.pop(record)
        if start.activity:
            records = self._by_activity[start.activity]
            records.remove(record)
            if not records:
                del self._by_activity[start.activity]
        return start


@dataclass
class _RedirectionRun:
    started: _Event | None
    first_folder: _Event | None = None


@dataclass
class _Collector:
    records: int = 0
    unreadable: int = 0
    first_error: str = ""
    channels: Counter[str] = field(default_factory=Counter)
    rows: list[_Row] = field(default_factory=list)
    gp_starts: _Starts = field(default_factory=_Starts)
    profile_starts: _Starts = field(default_factory=_Starts)
    redirection: dict[str, _RedirectionRun] = field(default_factory=dict)

    def add(self, event: _Event | _Other | _Unreadable) -> None:
        if isinstance(event, _Unreadable):
            self.unreadable += 1
            self.first_error = self.first_error or event.message
            return
        self.records += 1
        if isinstance(event, _Other):
            self.channels[event.channel or "(no channel)"] += 1
            return
        self.channels[event.channel or event.provider or "(no channel)"] += 1
        if event.provider == GROUP_POLICY:
            self._group_policy(event)
        elif event.provider == DIAGNOSTICS:
            self._diagnostics(event)
        elif event.provider == PROFILES:
            self._profile(event)
        elif event.provider == FOLDER_REDIRECTION:
            self._folder_redirection(event)

    def _row(
        self, start: _Event, metric: str, subject: str, time: datetime, value: float, order: int = 0
    ) -> None:
        self.rows.append(_Row(start.record, order, metric, subject, time, value, start.computer))

    # Group Policy ---------------------------------------------------------

    def _group_policy(self, event: _Event) -> None:
        eid = event.event_id
        if 4000 <= eid <= 4007:
            self.gp_starts.open(event)
        elif 8000 <= eid <= 8007 or 7000 <= eid <= 7007:
            family = eid % 1000
            start = self.gp_starts.close(event, lambda s: s.event_id - 4000 == family)
            if eid >= 8000:
                self._gp_duration(start, event, family)

    def _gp_duration(self, start: _Event | None, end: _Event, family: int) -> None:
        machine = _truthy((start.data if start else end.data).get("IsMachine"))
        if machine is None:
            machine = family % 2 == 0
        subject = " ".join(filter(None, ("computer" if machine else "user", GP_MODES[family // 2])))
        elapsed = next(
            (value for key in GP_ELAPSED_KEYS if (value := _number(end.data.get(key))) is not None), None
        )
        if start is not None and end.ticks >= start.ticks:
            self._row(start, "gpo.processing_ms", subject, start.time, _ms(start, end))
        elif elapsed is not None and elapsed >= 0:
            began = end.time - timedelta(seconds=elapsed)
            self._row(start or end, "gpo.processing_ms", subject, began, elapsed * 1000.0)

    # Diagnostics-Performance ----------------------------------------------

    def _diagnostics(self, event: _Event) -> None:
        if event.event_id == 100:
            fields, start_key = BOOT_FIELDS, "BootStartTime"
        elif event.event_id == 200:
            fields, start_key = SHUTDOWN_FIELDS, "ShutdownStartTime"
        else:
            return
        began = _timestamp(event.data.get(start_key)) or event.time
        for order, (key, metric) in enumerate(fields):
            value = _number(event.data.get(key))
            if value is None or value < 0 or (value == 0 and metric not in KEEP_ZERO):
                continue
            self._row(event, metric, "", began, value, order)

    # User Profile Service -------------------------------------------------

    def _profile(self, event: _Event) -> None:
        eid = event.event_id
        if eid in (1, 3):
            self.profile_starts.open(event)
        elif eid in (2, 4):
            session = event.data.get("Session")
            start = self.profile_starts.close(
                event,
                lambda s: (
                    s.event_id == eid - 1
                    and s.user == event.user
                    and (session is None or s.data.get("Session") in (None, session))
                ),
            )
            if start is not None and event.ticks >= start.ticks:
                metric = "profile.load_ms" if eid == 2 else "profile.unload_ms"
                self._row(start, metric, "", start.time, _ms(start, event))

    # Folder Redirection ---------------------------------------------------

    def _folder_redirection(self, event: _Event) -> None:
        key = event.user
        eid = event.event_id
        if eid == 1000:
            self.redirection[key] = _RedirectionRun(started=event)
        elif eid == 1006:
            run = self.redirection.setdefault(key, _RedirectionRun(started=None))
            run.first_folder = run.first_folder or event
        elif eid == 1001 and key in self.redirection:
            finished = self.redirection.pop(key)
            for start, metric, order in (
                (finished.started, "folder_redirection.processing_ms", 0),
                (finished.first_folder, "folder_redirection.sync_ms", 1),
            ):
                if start is not None and event.ticks >= start.ticks:
                    self._row(start, metric, "", start.time, _ms(start, event), order)

    # Output ---------------------------------------------------------------

    def channels_text(self) -> str:
        names = [name for name, _ in self.channels.most_common(CHANNELS_SHOWN)]
        more = len(self.channels) - len(names)
        return ", ".join(names) + (f" and {more} more" if more > 0 else "") if names else "none"

    def measurements(self, upload_host: str) -> list[Measurement]:
        counts: Counter[tuple[str, str]] = Counter()
        out = []
        for row in sorted(self.rows, key=lambda r: (r.record, r.order)):
            counts[(row.metric, row.subject)] += 1
            out.append(
                Measurement(
                    time=row.time,
                    metric=row.metric,
                    value=row.value,
                    unit="ms",
                    repetition=counts[(row.metric, row.subject)],
                    subject=row.subject,
                    host=None if upload_host else (row.computer or None),
                )
            )
        return out


def _ms(start: _Event, end: _Event) -> float:
    """Milliseconds from ``start`` to ``end``, exact in their 100 ns ticks."""
    return (end.ticks - start.ticks) / TICKS_PER_MS

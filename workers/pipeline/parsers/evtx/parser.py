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

Logon phases (``workers/pipeline/parsers/evtx/logons.py``, ``docs/logon_phases.md``)
    ``logon.cse_ms`` (subject: the extension's name): Group Policy 4016 ->
    5016/6016/7016 inside a user logon run (4001's activity id);
    ``logon.scripts_ms``: 4018 -> 5018/6018/7018 of that run;
    ``logon.shell_ms`` (inferred): the end of profile load or user policy to
    the user's first Shell-Core 9705; ``logon.total_ms``: profile event 1 to
    that 9705.

Group Policy and profile events are paired by ``ActivityID`` when the end
carries one that a start had; otherwise with the latest open start of the
same kind that has no other activity. Boot, profile and folder redirection
rows have an empty ``subject``. ``repetition`` counts each (metric,
subject) in record-number order. ``host`` is the events' ``Computer``, the
machine that logged them, whoever uploads the log (issue 20: the uploader
stays on the upload). No public User Profile Service or Folder
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

from typing import Any, ClassVar

from workers.pipeline.decode import Decoded, Opener
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.evtx.collector import Collector
from workers.pipeline.parsers.evtx.events import MAGIC, PARSER, check_layout, error, events, seekable_stream
from workers.pipeline.records import Parsed


class EvtxLogonParser:
    """Boot, logon, profile and Group Policy durations from a Windows ``.evtx`` log."""

    name: ClassVar[str] = PARSER
    binary: ClassVar[bool] = True

    def detect(self, head_bytes: bytes, head_text: str) -> int:
        return 100 if head_bytes.startswith(MAGIC) else 0

    def parse(self, source: Decoded | Opener, context: ParseContext) -> Parsed:
        opener = source.opener if isinstance(source, Decoded) else source
        collector = Collector()
        with opener() as raw, seekable_stream(raw) as stream:
            chunks = check_layout(stream)
            for event in events(stream, chunks):
                collector.add(event)
        if collector.records == 0:
            detail = f" ({collector.first_error})" if collector.first_error else ""
            raise error(
                f"no event record could be read from this event log{detail}; "
                f"it has {chunks} chunk(s) but none holds readable records"
            )
        measurements = collector.measurements()
        if not measurements:
            raise error(nothing_found(collector, "event log"))
        attributes: dict[str, Any] = {}
        if collector.unreadable:
            attributes["evtx_unreadable_chunks"] = collector.unreadable
        return Parsed(parser=PARSER, tool="evtx", measurements=measurements, run_attributes=attributes)


def nothing_found(collector: Collector, what: str) -> str:
    """Why a log (``.evtx`` or XML export) gave no row: the channels it holds and the events we read."""
    return (
        f"no logon or policy timings found in this {what} "
        f"(channels seen: {collector.channels_text()}); expected Group Policy start/end events "
        "(4000-4007/8000-8007), Diagnostics-Performance boot/shutdown events (100/200), "
        "User Profile Service logon/logoff events (1-4), Folder Redirection events (1000/1001/1006) "
        "or Shell-Core 9705 after a profile load"
    )

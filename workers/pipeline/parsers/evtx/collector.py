"""Pairing events into durations: Group Policy, boot and shutdown, profile logons, folder redirection."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from workers.pipeline.parsers.evtx.events import (
    DIAGNOSTICS,
    FOLDER_REDIRECTION,
    GROUP_POLICY,
    PROFILES,
    SHELL_CORE,
    Event,
    Other,
    Unreadable,
)
from workers.pipeline.parsers.evtx.fields import TICKS_PER_MS, timestamp_of, to_number, truthy
from workers.pipeline.parsers.evtx.logons import GROUP_POLICY_IDS, Logons
from workers.pipeline.records import Measurement

CHANNELS_SHOWN = 8

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
        self._open: dict[int, Event] = {}
        self._by_activity: dict[str, list[int]] = {}

    def open(self, event: Event) -> None:
        self._open[event.record] = event
        if event.activity:
            self._by_activity.setdefault(event.activity, []).append(event.record)

    def close(self, end: Event, same_kind: Callable[[Event], bool]) -> Event | None:
        """The start ``end`` belongs to: same activity id, else the latest one with no other activity."""
        for record in self._by_activity.get(end.activity, ()) if end.activity else ():
            if same_kind(self._open[record]):
                return self._pop(record)
        for record in reversed(self._open):
            start = self._open[record]
            if same_kind(start) and (not start.activity or not end.activity):
                return self._pop(record)
        return None

    def _pop(self, record: int) -> Event:
        start = self._open.pop(record)
        if start.activity:
            records = self._by_activity[start.activity]
            records.remove(record)
            if not records:
                del self._by_activity[start.activity]
        return start


@dataclass
class _RedirectionRun:
    started: Event | None
    first_folder: Event | None = None


@dataclass
class Collector:
    records: int = 0
    unreadable: int = 0
    first_error: str = ""
    channels: Counter[str] = field(default_factory=Counter)
    rows: list[_Row] = field(default_factory=list)
    gp_starts: _Starts = field(default_factory=_Starts)
    profile_starts: _Starts = field(default_factory=_Starts)
    redirection: dict[str, _RedirectionRun] = field(default_factory=dict)
    logons: Logons = field(default_factory=Logons)

    def add(self, event: Event | Other | Unreadable) -> None:
        if isinstance(event, Unreadable):
            self.unreadable += 1
            self.first_error = self.first_error or event.message
            return
        self.records += 1
        if isinstance(event, Other):
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
        elif event.provider == SHELL_CORE:
            self.logons.shell(event)

    def _row(
        self, start: Event, metric: str, subject: str, time: datetime, value: float, order: int = 0
    ) -> None:
        self.rows.append(_Row(start.record, order, metric, subject, time, value, start.computer))

    # Group Policy ---------------------------------------------------------

    def _group_policy(self, event: Event) -> None:
        eid = event.event_id
        self.logons.group_policy(event)
        if eid in GROUP_POLICY_IDS:
            return
        if 4000 <= eid <= 4007:
            self.gp_starts.open(event)
        elif 8000 <= eid <= 8007 or 7000 <= eid <= 7007:
            family = eid % 1000
            start = self.gp_starts.close(event, lambda s: s.event_id - 4000 == family)
            if eid >= 8000:
                self._gp_duration(start, event, family)

    def _gp_duration(self, start: Event | None, end: Event, family: int) -> None:
        machine = truthy((start.data if start else end.data).get("IsMachine"))
        if machine is None:
            machine = family % 2 == 0
        subject = " ".join(filter(None, ("computer" if machine else "user", GP_MODES[family // 2])))
        elapsed = next(
            (value for key in GP_ELAPSED_KEYS if (value := to_number(end.data.get(key))) is not None), None
        )
        if start is not None and end.ticks >= start.ticks:
            self._row(start, "gpo.processing_ms", subject, start.time, _ms(start, end))
        elif elapsed is not None and elapsed >= 0:
            began = end.time - timedelta(seconds=elapsed)
            self._row(start or end, "gpo.processing_ms", subject, began, elapsed * 1000.0)

    # Diagnostics-Performance ----------------------------------------------

    def _diagnostics(self, event: Event) -> None:
        if event.event_id == 100:
            fields, start_key = BOOT_FIELDS, "BootStartTime"
        elif event.event_id == 200:
            fields, start_key = SHUTDOWN_FIELDS, "ShutdownStartTime"
        else:
            return
        began = timestamp_of(event.data.get(start_key)) or event.time
        for order, (key, metric) in enumerate(fields):
            value = to_number(event.data.get(key))
            if value is None or value < 0 or (value == 0 and metric not in KEEP_ZERO):
                continue
            self._row(event, metric, "", began, value, order)

    # User Profile Service -------------------------------------------------

    def _profile(self, event: Event) -> None:
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
                if eid == 2:
                    self.logons.profile(start, event)

    # Folder Redirection ---------------------------------------------------

    def _folder_redirection(self, event: Event) -> None:
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

    def measurements(self) -> list[Measurement]:
        """Each row, as a result of the machine that logged it (``Computer``), whoever uploaded it."""
        counts: Counter[tuple[str, str]] = Counter()
        out = []
        phases = [
            _Row(p.start.record, p.order, p.metric, p.subject, p.time, p.value, p.start.computer)
            for p in self.logons.rows()
        ]
        for row in sorted([*self.rows, *phases], key=lambda r: (r.record, r.order)):
            counts[(row.metric, row.subject)] += 1
            out.append(
                Measurement(
                    time=row.time,
                    metric=row.metric,
                    value=row.value,
                    unit="ms",
                    repetition=counts[(row.metric, row.subject)],
                    subject=row.subject,
                    host=row.computer or None,
                )
            )
        return out


def _ms(start: Event, end: Event) -> float:
    """Milliseconds from ``start`` to ``end``, exact in their 100 ns ticks."""
    return (end.ticks - start.ticks) / TICKS_PER_MS

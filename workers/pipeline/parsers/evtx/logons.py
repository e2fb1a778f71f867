"""A logon's phases from the events of one log: policy extensions, logon scripts, shell start, total.

Group Policy numbers each processing run with the ``Correlation/@ActivityID``
its start event carries (4001 "user logon" for a logon); the extension
events 4016 -> 5016/6016/7016 and the script events 4018 -> 5018/6018/7018
with that activity belong to that logon. The User Profile Service events and
Group Policy's own events carry different users (the user's SID; SYSTEM), so
a profile load (1 -> 2, paired by the collector per user SID and session) is
joined to the first user logon policy run that starts on the same computer
at or after its event 1 and within :data:`JOIN_WINDOW`. The shell start is
*inferred*: the first ``Microsoft-Windows-Shell-Core`` 9705 ("started
enumeration of commands for registry key ... Run", written by Explorer once
the desktop runs) of that user SID after the profile load began; the phase
runs from the end of the last earlier phase (profile load or user policy) to
it. The total needs both ends: profile event 1 to that 9705.

See ``docs/logon_phases.md`` for the sources of each id.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from workers.pipeline.parsers.evtx.events import Event
from workers.pipeline.parsers.evtx.fields import TICKS_PER_MS, to_number

SHELL_STARTED = 9705
USER_LOGON_START, USER_LOGON_END, USER_LOGON_FAILED = 4001, 8001, 7001
CSE_START, CSE_ENDS = 4016, (5016, 6016, 7016)
SCRIPT_START, SCRIPT_ENDS = 4018, (5018, 6018, 7018)
GROUP_POLICY_IDS = frozenset((CSE_START, *CSE_ENDS, SCRIPT_START, *SCRIPT_ENDS))
CSE_MS_KEYS = ("CSEElaspedTimeInMilliSeconds", "CSEElapsedTimeInMilliSeconds")
SCRIPT_SECONDS_KEYS = ("ScriptElaspedTimeInSeconds", "ScriptElapsedTimeInSeconds")
JOIN_WINDOW = timedelta(minutes=10)

CSE_METRIC = "logon.cse_ms"
SCRIPTS_METRIC = "logon.scripts_ms"
SHELL_METRIC = "logon.shell_ms"
TOTAL_METRIC = "logon.total_ms"


@dataclass(frozen=True)
class PhaseRow:
    start: Event  # gives the record order, the computer and (unless ``time`` says) the time
    metric: str
    subject: str
    time: datetime
    value: float
    order: int


@dataclass
class _Logon:
    """One user logon policy run (activity of a 4001) and what joins it."""

    start: Event
    end: Event | None = None
    cse_starts: dict[str, Event] = field(default_factory=dict)
    cse_ends: list[Event] = field(default_factory=list)
    script_starts: list[Event] = field(default_factory=list)
    script_ends: list[Event] = field(default_factory=list)
    profile: tuple[Event, Event] | None = None


def _ms(start: Event, end: Event) -> float:
    return (end.ticks - start.ticks) / TICKS_PER_MS


def _first_number(event: Event, keys: tuple[str, ...]) -> float | None:
    return next((v for key in keys if (v := to_number(event.data.get(key))) is not None), None)


def _cse_name(event: Event) -> str:
    name = str(event.data.get("CSEExtensionName") or "").strip()
    return name or str(event.data.get("CSEExtensionId") or "unnamed extension").strip()


def _cse_key(event: Event) -> str:
    return str(event.data.get("CSEExtensionId") or _cse_name(event)).strip().upper()


@dataclass
class Logons:
    """Collects the events a logon is made of; :meth:`rows` joins and times them once all are read."""

    logons: dict[str, _Logon] = field(default_factory=dict)  # by activity id
    profiles: list[tuple[Event, Event]] = field(default_factory=list)
    shells: list[Event] = field(default_factory=list)

    def group_policy(self, event: Event) -> None:
        eid, activity = event.event_id, event.activity
        if eid == USER_LOGON_START and activity:
            self.logons[activity] = _Logon(start=event)
            return
        logon = self.logons.get(activity) if activity else None
        if logon is None:
            return  # not part of a user logon this log holds (boot, refresh, or its 4001 overwritten)
        if eid in (USER_LOGON_END, USER_LOGON_FAILED):
            logon.end = event
        elif eid == CSE_START:
            logon.cse_starts[_cse_key(event)] = event
        elif eid in CSE_ENDS:
            logon.cse_ends.append(event)
        elif eid == SCRIPT_START:
            logon.script_starts.append(event)
        elif eid in SCRIPT_ENDS:
            logon.script_ends.append(event)

    def profile(self, start: Event, end: Event) -> None:
        self.profiles.append((start, end))

    def shell(self, event: Event) -> None:
        if event.event_id == SHELL_STARTED and event.user:
            self.shells.append(event)

    # ----------------------------------------------------------------------

    def rows(self) -> list[PhaseRow]:
        out: list[PhaseRow] = []
        self._join_profiles()
        for logon in self.logons.values():
            out.extend(self._extensions(logon))
            out.extend(self._scripts(logon))
        out.extend(self._shell_and_total())
        return out

    def _join_profiles(self) -> None:
        free = sorted(self.logons.values(), key=lambda lg: lg.start.ticks)
        for logon in free:
            logon.profile = None
        for start, end in sorted(self.profiles, key=lambda pair: pair[0].ticks):
            for logon in free:
                began = logon.start
                if began.computer == start.computer and start.time <= began.time <= start.time + JOIN_WINDOW:
                    logon.profile = (start, end)
                    free.remove(logon)
                    break

    def _extensions(self, logon: _Logon) -> list[PhaseRow]:
        rows = []
        starts = dict(logon.cse_starts)
        for order, end in enumerate(logon.cse_ends):
            start = starts.pop(_cse_key(end), None)
            name = _cse_name(end) if end.data.get("CSEExtensionName") else _cse_name(start or end)
            if start is not None and end.ticks >= start.ticks:
                rows.append(PhaseRow(start, CSE_METRIC, name, start.time, _ms(start, end), 10 + order))
                continue
            ms = _first_number(end, CSE_MS_KEYS)
            if ms is not None and ms >= 0:
                rows.append(
                    PhaseRow(end, CSE_METRIC, name, end.time - timedelta(milliseconds=ms), ms, 10 + order)
                )
        return rows

    def _scripts(self, logon: _Logon) -> list[PhaseRow]:
        """The logon's scripts as one phase: the first script start to the last script end."""
        if logon.script_starts and logon.script_ends:
            first = min(logon.script_starts, key=lambda e: e.ticks)
            last = max(logon.script_ends, key=lambda e: e.ticks)
            if last.ticks >= first.ticks:
                return [PhaseRow(first, SCRIPTS_METRIC, "", first.time, _ms(first, last), 50)]
        if logon.script_ends:
            seconds = [
                s for e in logon.script_ends if (s := _first_number(e, SCRIPT_SECONDS_KEYS)) is not None
            ]
            if seconds:
                last = max(logon.script_ends, key=lambda e: e.ticks)
                ms = sum(seconds) * 1000.0
                return [PhaseRow(last, SCRIPTS_METRIC, "", last.time - timedelta(milliseconds=ms), ms, 50)]
        return []

    def _shell_and_total(self) -> list[PhaseRow]:
        """Per profile load: the inferred shell start and, with both ends in the log, the total."""
        by_profile = {id(lg.profile[0]): lg for lg in self.logons.values() if lg.profile}
        used: set[int] = set()
        rows = []
        for start, end in sorted(self.profiles, key=lambda pair: pair[0].ticks):
            shell = next(
                (
                    s
                    for s in sorted(self.shells, key=lambda e: e.ticks)
                    if s.record not in used
                    and s.user == start.user
                    and s.computer == start.computer
                    and s.ticks >= start.ticks
                ),
                None,
            )
            if shell is None:
                continue
            used.add(shell.record)
            logon = by_profile.get(id(start))
            before = [
                e for e in (end, logon.end if logon else None) if e is not None and e.ticks <= shell.ticks
            ]
            last = max(before, key=lambda e: e.ticks) if before else start
            rows.append(PhaseRow(start, SHELL_METRIC, "", last.time, _ms(last, shell), 90))
            rows.append(PhaseRow(start, TOTAL_METRIC, "", start.time, _ms(start, shell), 99))
        return rows

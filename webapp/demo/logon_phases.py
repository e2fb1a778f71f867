"""Where the logon time goes, with and without Folder Redirection (demo campaign "Logon load 2015").

The four load clients ``LG01``..``LG04`` (Windows 10, against the 2012 R2 /
SMB 3.02 file server ``FS02``) each log five test users on, one every five
minutes, first with no folders redirected (``redirection=none``, run
``logon-phases-redirection-none``, 1 December 2015) and then with Documents,
Desktop and AppData redirected to ``FS02`` (``redirection=folder``, run
``logon-phases-redirection-folder``, 2 December 2015). Each client then
exports its logon events as XML with a structured query over three channels,
as PowerShell 5 writes ``wevtutil``'s output to a file (UTF-16LE with a BOM,
one ``<Event>`` per line, no root)::

    wevtutil qe logon-phases-query.xml /sq:true /f:xml > LG01_logon_phases_redirection-none.xml

holding Group Policy operational 4001/5312/4016/5016/4018/5018/8001, User
Profile Service 1/2 and Shell-Core 9705/9706 (``docs/logon_phases.md`` says
what each gives). The file is uploaded with ``kind="evtx_xml"``.

Every phase's mean over the 20 logons of a scenario (four clients, five logons
each; each client's own five average to the same figure), in ms:

=========================================  ========  ========
phase (API key)                            none      folder
=========================================  ========  ========
``profile`` (User Profile Service 1 -> 2)  1,800     2,600
``group_policy`` (4001 -> 8001)            1,350     2,560
``cse:Registry`` (4016 -> 5016)            120       120
``cse:Folder Redirection``                 missing   1,200
``scripts`` (4018 -> 5018)                 850       850
``shell`` (inferred, 8001 -> 9705)         1,400     1,400
``total`` (1 -> 9705)                      4,610     6,620
=========================================  ========  ========

User policy is 340 ms from 4001 to the first extension, then Registry, 10 ms,
Folder Redirection (folder only) and 10 ms, then the scripts, and 30 ms to
8001; policy starts 60 ms after the profile is loaded. So the total is
profile + 60 + user policy + shell start, and the user policy time the
extensions leave (``group_policy_other_ms``) is 1,230 ms with none and
1,240 with folder. Profile load is 2,600 / 1,800 = 1.444 times as long
with Folder Redirection, and the whole logon 6,620 / 4,610 = 1.436 times.

Durations are whole microseconds drawn around those means
(:func:`webapp.demo.timings.repetitions`), so each mean is exact; each logon
starts at its own 100 ns tick, so ``SystemTime`` keeps all 7 digits.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from xml.sax.saxutils import escape

from webapp.demo import timings
from webapp.demo.files import SEED, DemoUpload
from webapp.demo.logon_load import CLIENTS

STUDY = "logon-phases"
LOGONS = 5  # per client and scenario
EVERY = timedelta(minutes=5)
CLIENT_APART = timedelta(seconds=20)
DOMAIN = "contoso.local"
DOMAIN_SID = "S-1-5-21-1977437812-2231425384-3196241077"
SYSTEM_SID = "S-1-5-18"
NAMESPACE = "http://schemas.microsoft.com/win/2004/08/events/event"
TICKS_PER_US = 10

GP = ("Microsoft-Windows-GroupPolicy", "{AEA1B4FA-97D1-45F2-A64C-4D69FFFD92C9}")
GP_CHANNEL = "Microsoft-Windows-GroupPolicy/Operational"
UPS = ("Microsoft-Windows-User Profiles Service", "{89B1E9F0-5AFF-44A6-9B44-0A07A7CE5845}")
UPS_CHANNEL = "Microsoft-Windows-User Profile Service/Operational"
SHELL = ("Microsoft-Windows-Shell-Core", "{30336ED4-E327-447C-9DE0-51B652C86108}")
SHELL_CHANNEL = "Microsoft-Windows-Shell-Core/Operational"
REGISTRY = ("{35378EAC-683F-11D2-A89A-00C04FBBCFA2}", "Registry")
FOLDER_REDIRECTION = ("{25537BA6-77A8-11D2-9B6C-0000F8080861}", "Folder Redirection")
RUN_KEY = "Software\\Microsoft\\Windows\\CurrentVersion\\Run"
# Applicable user GPOs: (GUID, name, user version); the folder scenario links one more. Default Domain
# Policy has its well-known GUID; the two "LG" GPOs are made up for the demo.
DEFAULT_DOMAIN_POLICY = ("{31B2F340-016D-11D2-945F-00C04FB984F9}", "Default Domain Policy", 3)
LG_USERS = ("{7C1E55D2-4A0B-4E8F-9C3D-2B6A81F04E17}", "LG Users", 12)
LG_FOLDERS = ("{E3A9B6C4-1D27-4F58-8B0E-6C5D94A27F31}", "LG Folder Redirection", 4)

GAP_MS = Decimal(10)  # before and after the Folder Redirection extension (after Registry when none)
FIRST_RECORD = {GP_CHANNEL: 48_210, UPS_CHANNEL: 2_316, SHELL_CHANNEL: 11_904}  # each channel's EventRecordID
Data = list[tuple[str, str]]


@dataclass(frozen=True)
class Scenario:
    redirection: str
    run: str
    day: datetime  # 09:00 AEDT, in UTC
    profile_ms: Decimal
    folder_ms: Decimal | None  # Folder Redirection extension; None: not applied

    @property
    def dims(self) -> dict[str, str]:
        return {
            "study": STUDY,
            "server_os": "2012 R2",
            "smb_dialect": "3.02",
            "disk_type": "SSD",
            "av": "off",
            "redirection": self.redirection,
        }


SCENARIOS = (
    Scenario(
        "none", "logon-phases-redirection-none", datetime(2015, 11, 30, 22, tzinfo=UTC), Decimal(1800), None
    ),
    Scenario(
        "folder",
        "logon-phases-redirection-folder",
        datetime(2015, 12, 1, 22, tzinfo=UTC),
        Decimal(2600),
        Decimal(1200),
    ),
)
# The segments every logon is drawn from: (name, mean ms, spread as a share of the mean).
TO_POLICY = ("to_policy", Decimal(60), 0.25)  # profile loaded (2) -> 4001
POLICY_START = ("policy_start", Decimal(340), 0.1)  # 4001 -> the first extension's 4016
REGISTRY_MS = ("registry", Decimal(120), 0.1)
SCRIPTS = ("scripts", Decimal(850), 0.1)  # 4018 -> 5018
POLICY_END = ("policy_end", Decimal(30), 0.2)  # 5018 -> 8001
SHELL_MS = ("shell", Decimal(1400), 0.08)  # 8001 -> 9705
PROFILE_SPREAD = 0.08
FOLDER_SPREAD = 0.1


def expected_means(redirection: str) -> dict[str, Decimal | None]:
    """Each phase's mean (ms) over a scenario's logons, as the files are built to give (for docs and tests)."""
    scenario = next(s for s in SCENARIOS if s.redirection == redirection)
    folder = scenario.folder_ms
    policy = POLICY_START[1] + REGISTRY_MS[1] + GAP_MS + SCRIPTS[1] + POLICY_END[1]
    if folder is not None:
        policy += folder + GAP_MS
    return {
        "profile": scenario.profile_ms,
        "group_policy": policy,
        "cse:Registry": REGISTRY_MS[1],
        "cse:Folder Redirection": folder,
        "scripts": SCRIPTS[1],
        "shell": SHELL_MS[1],
        "total": scenario.profile_ms + TO_POLICY[1] + policy + SHELL_MS[1],
    }


def uploads() -> Iterator[DemoUpload]:
    for index, scenario in enumerate(SCENARIOS):
        for number, client in enumerate(CLIENTS):
            rng = random.Random(SEED * 720 + index * 10 + number)
            events = _Export(client, rng)
            for logon in range(LOGONS):
                events.logon(scenario, number, logon)
            yield DemoUpload(
                filename=f"{client}_logon_phases_redirection-{scenario.redirection}.xml",
                content=events.encoded(),
                kind="evtx_xml",
                scenario=scenario.dims,
                host=client,
                role="client",
                run=scenario.run,
                steps=[],
            )


def _draws(rng: random.Random, mean: Decimal, spread: float) -> list[int]:
    """``LOGONS`` durations in 100 ns ticks whose mean is exactly ``mean`` ms."""
    return [micros * TICKS_PER_US for micros in timings.repetitions(rng, mean, LOGONS, spread)]


def _ms_ticks(ms: Decimal) -> int:
    return timings.whole_micros(ms) * TICKS_PER_US


def _system_time(at: datetime, ticks: int) -> str:
    """``at`` (a whole second) plus ``ticks``, as wevtutil writes ``SystemTime``: 7 fraction digits."""
    whole = at + timedelta(seconds=ticks // 10_000_000)
    return f"{whole:%Y-%m-%dT%H:%M:%S}.{ticks % 10_000_000:07d}Z"


def _guid(rng: random.Random) -> str:
    text = f"{rng.getrandbits(128):032X}"
    return f"{{{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}}}"


@dataclass
class _Export:
    """One client's export: its events in time order, each channel numbering its own records."""

    client: str
    rng: random.Random
    lines: list[str] = field(default_factory=list)
    records: dict[str, int] = field(default_factory=dict)
    draws: dict[str, list[int]] = field(default_factory=dict)
    at: datetime = datetime(
        2015, 1, 1, tzinfo=UTC
    )  # the current logon's first second; events count ticks from it
    thread: int = 0  # the Group Policy service thread of the current logon

    def encoded(self) -> bytes:
        return ("\ufeff" + "".join(line + "\r\n" for line in self.lines)).encode("utf-16-le")

    def _drawn(self, scenario: Scenario, logon: int) -> dict[str, int]:
        """This logon's segment durations in ticks; all five logons' are drawn at the first."""
        if logon == 0:
            segments = (TO_POLICY, POLICY_START, REGISTRY_MS, SCRIPTS, POLICY_END, SHELL_MS)
            self.draws = {name: _draws(self.rng, mean, spread) for name, mean, spread in segments}
            self.draws["profile"] = _draws(self.rng, scenario.profile_ms, PROFILE_SPREAD)
            if scenario.folder_ms is not None:
                self.draws["folder"] = _draws(self.rng, scenario.folder_ms, FOLDER_SPREAD)
        return {name: values[logon] for name, values in self.draws.items()}

    def logon(self, scenario: Scenario, number: int, logon: int) -> None:
        d = self._drawn(scenario, logon)
        self.at = scenario.day + CLIENT_APART * number + EVERY * logon
        self.thread = self.rng.randrange(1000, 9000, 4)
        t = self.rng.randrange(10_000_000)  # ticks into that second: every digit of SystemTime used
        user_number = number * LOGONS + logon + 1
        user, sam = f"{DOMAIN_SID}-{1100 + user_number}", f"CONTOSO\\lgtest{user_number:03d}"
        session = str(2 + logon)
        activity = _guid(self.rng)
        gpos = [DEFAULT_DOMAIN_POLICY, LG_USERS, *([LG_FOLDERS] if scenario.folder_ms is not None else [])]

        self._ups(t, 1, user, session)
        t += d["profile"]
        self._ups(t, 2, user, session)
        t += d["to_policy"]
        policy_began = t
        self._gp(
            t,
            4001,
            activity,
            (1, 1),
            [
                ("PolicyActivityId", activity.strip("{}")),
                ("PrincipalSamName", sam),
                ("IsMachine", "0"),
                ("IsDomainJoined", "true"),
                ("IsBackgroundProcessing", "false"),
                ("IsAsyncProcessing", "false"),
                ("IsServiceRestart", "false"),
                ("ReasonForSyncProcessing", "1"),
            ],
        )
        self._gp(
            t + d["policy_start"] // 2,
            5312,
            activity,
            (0, 0),
            [("DescriptionString", _names(gpos)), ("GPOInfoList", "".join(_gpo_info(g) for g in gpos))],
        )
        t += d["policy_start"]
        t = self._extension(t, activity, REGISTRY, d["registry"], gpos[:2])
        if scenario.folder_ms is not None:
            t = self._extension(t + _ms_ticks(GAP_MS), activity, FOLDER_REDIRECTION, d["folder"], gpos[2:])
        t += _ms_ticks(GAP_MS)
        script = [("ScriptType", "1"), ("PrincipalSamName", sam)]
        self._gp(t, 4018, activity, (0, 1), [*script, ("IsMachine", "0"), ("IsDomainJoined", "true")])
        t += d["scripts"]
        seconds = str(d["scripts"] // 10_000_000)  # whole seconds, cut, as Windows reports them
        self._gp(
            t, 5018, activity, (0, 2), [("ScriptElaspedTimeInSeconds", seconds), ("ErrorCode", "0"), *script]
        )
        t += d["policy_end"]
        self._gp(
            t,
            8001,
            activity,
            (1, 2),
            [
                ("PolicyElaspedTimeInSeconds", str((t - policy_began) // 10_000_000)),
                ("ErrorCode", "0"),
                ("PrincipalSamName", sam),
                ("IsMachine", "0"),
                ("IsConnectivityFailure", "false"),
            ],
        )
        t += d["shell"]
        explorer = self.rng.randrange(2000, 9000, 4)
        self._shell(t, 9705, user, explorer)
        self._shell(t + self.rng.randrange(20_000, 90_000), 9706, user, explorer)

    def _extension(
        self, t: int, activity: str, which: tuple[str, str], ticks: int, gpos: list[tuple[str, str, int]]
    ) -> int:
        """An extension's 4016 at ``t`` and its 5016 ``ticks`` later; returns the 5016's time."""
        cse = [("CSEExtensionId", which[0]), ("CSEExtensionName", which[1])]
        self._gp(
            t,
            4016,
            activity,
            (0, 1),
            [
                *cse,
                ("IsExtensionAsyncProcessing", "false"),
                ("IsGPOListChanged", "false"),
                ("GPOListStatusString", "%%4101"),
                ("DescriptionString", _names(gpos)),
                ("ApplicableGPOList", "".join(_gpo_info(g) for g in gpos)),
            ],
        )
        t += ticks
        elapsed = str(ticks // 10_000)  # whole milliseconds, cut
        self._gp(
            t, 5016, activity, (0, 2), [("CSEElaspedTimeInMilliSeconds", elapsed), ("ErrorCode", "0"), *cse]
        )
        return t

    def _gp(self, t: int, event_id: int, activity: str, version_opcode: tuple[int, int], data: Data) -> None:
        system = _System(GP, GP_CHANNEL, event_id, version_opcode, "0x4000000000000000", SYSTEM_SID)
        self._event(system, t, activity, (1012, self.thread), data)

    def _ups(self, t: int, event_id: int, user: str, session: str) -> None:
        system = _System(UPS, UPS_CHANNEL, event_id, (0, event_id), "0x8000000000000000", user)
        self._event(system, t, "", (1108, 1244), [("Session", session)])

    def _shell(self, t: int, event_id: int, user: str, explorer: int) -> None:
        opcode = 1 if event_id == 9705 else 2
        system = _System(SHELL, SHELL_CHANNEL, event_id, (0, opcode), "0x2000000000000000", user)
        self._event(system, t, "", (explorer, explorer + 112), [("KeyName", RUN_KEY)])

    def _event(self, system: _System, t: int, activity: str, execution: tuple[int, int], data: Data) -> None:
        channel = system.channel
        record = self.records.get(channel, FIRST_RECORD[channel]) + self.rng.randint(1, 3)  # gaps: left out
        self.records[channel] = record
        correlation = f"<Correlation ActivityID='{activity}'/>" if activity else "<Correlation/>"
        values = "".join(f"<Data Name='{name}'>{escape(value)}</Data>" for name, value in data)
        self.lines.append(
            f"<Event xmlns='{NAMESPACE}'><System><Provider Name='{system.provider[0]}' Guid='{system.provider[1]}'/>"
            f"<EventID>{system.event_id}</EventID><Version>{system.version_opcode[0]}</Version><Level>4</Level>"
            f"<Task>0</Task><Opcode>{system.version_opcode[1]}</Opcode><Keywords>{system.keywords}</Keywords>"
            f"<TimeCreated SystemTime='{_system_time(self.at, t)}'/><EventRecordID>{record}</EventRecordID>"
            f"{correlation}<Execution ProcessID='{execution[0]}' ThreadID='{execution[1]}'/>"
            f"<Channel>{channel}</Channel><Computer>{self.client}.{DOMAIN}</Computer>"
            f"<Security UserID='{system.user}'/></System><EventData>{values}</EventData></Event>"
        )


@dataclass(frozen=True)
class _System:
    provider: tuple[str, str]
    channel: str
    event_id: int
    version_opcode: tuple[int, int]
    keywords: str
    user: str


def _names(gpos: list[tuple[str, str, int]]) -> str:
    return "".join(f"{name}\n" for _, name, _ in gpos)


def _gpo_info(gpo: tuple[str, str, int]) -> str:
    guid, name, version = gpo
    som = "DC=contoso,DC=local" if name == DEFAULT_DOMAIN_POLICY[1] else "OU=Load Users,DC=contoso,DC=local"
    return (
        f'<GPO ID="{guid}"><Name>{name}</Name><Version>{version * 65536}</Version><SOM>LDAP://{som}</SOM>'
        f"<FSPath>\\\\{DOMAIN}\\SysVol\\{DOMAIN}\\Policies\\{guid}\\User</FSPath></GPO>"
    )

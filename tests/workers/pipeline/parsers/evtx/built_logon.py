"""Logon event records built as the ``evtx`` library renders them (its JSON), for the logon phase tests.

No public log holds every phase of one logon (the real Group Policy logs in
shared/fixtures apply no extension and run no script), so these records follow
the providers' event definitions: Group Policy 4001/8001 (user logon policy),
4016/5016/7016 (an extension, ``CSEExtensionName`` and
``CSEElaspedTimeInMilliSeconds``), 4018/5018 (scripts); User Profile Service
1/2 (``Session``); Shell-Core 9705.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from workers.pipeline.parsers.evtx.collector import Collector
from workers.pipeline.parsers.evtx.events import _event
from workers.pipeline.records import Measurement

T0 = datetime(2024, 5, 6, 8, 0, 0, tzinfo=UTC)
GP = ("Microsoft-Windows-GroupPolicy", "Microsoft-Windows-GroupPolicy/Operational")
UPS = ("Microsoft-Windows-User Profiles Service", "Microsoft-Windows-User Profile Service/Operational")
SHELL = ("Microsoft-Windows-Shell-Core", "Microsoft-Windows-Shell-Core/Operational")
FOLDER_REDIRECTION = ("{25537BA6-77A8-11D2-9B6C-0000F8080861}", "Folder Redirection")
REGISTRY = ("{35378EAC-683F-11D2-A89A-00C04FBBCFA2}", "Registry")
SYSTEM = "S-1-5-18"


def record(
    source: tuple[str, str],
    event_id: int,
    record_id: int,
    ms: float,
    *,
    activity: str = "",
    user: str = SYSTEM,
    computer: str = "VDI-07",
    **data: Any,
) -> dict[str, Any]:
    """One record ``ms`` milliseconds after ``T0`` (to the 100 ns tick), as ``records_json`` yields it."""
    ticks = round(ms * 10_000)
    at = T0 + timedelta(microseconds=ticks // 10)
    seven = f"{at:%Y-%m-%dT%H:%M:%S}.{at.microsecond:06d}{ticks % 10}Z"
    system: dict[str, Any] = {
        "Provider": {"#attributes": {"Name": source[0]}},
        "EventID": event_id,
        "TimeCreated": {"#attributes": {"SystemTime": f"{at:%Y-%m-%dT%H:%M:%S}.{at.microsecond:06d}Z"}},
        "EventRecordID": record_id,
        "Correlation": {"#attributes": {"ActivityID": activity}} if activity else None,
        "Channel": source[1],
        "Computer": computer,
        "Security": {"#attributes": {"UserID": user}},
    }
    document = {"Event": {"System": system, "EventData": data}}
    return {"event_record_id": record_id, "timestamp": f"{seven} UTC", "data": json.dumps(document)}


def cse(
    event_id: int, record_id: int, ms: float, activity: str, which: tuple[str, str], **data: Any
) -> dict[str, Any]:
    """An extension's start (4016) or end (5016/6016/7016) event; ``which`` is (CSE id, name)."""
    return record(
        GP,
        event_id,
        record_id,
        ms,
        activity=activity,
        CSEExtensionId=which[0],
        CSEExtensionName=which[1],
        **data,
    )


def full_logon(
    computer: str = "VDI-07",
    user: str = "S-1-5-21-1001",
    activity: str = "A1",
    first: int = 1,
    offset: float = 0.0,
    scale: float = 1.0,
) -> list[dict[str, Any]]:
    """A logon with every phase, at ``offset`` ms, each phase ``scale`` times the base durations:
    profile 1,800.5 ms; user policy 4,000; Folder Redirection 2,500; Registry 120; scripts 1,250;
    shell start 1,500 (the 9705 1,500 ms after 8001); total 7,350 at scale 1."""

    def at(ms: float) -> float:
        return offset + ms * scale

    n = iter(range(first, first + 100))
    return [
        record(UPS, 1, next(n), at(0), user=user, computer=computer, Session=2),
        record(UPS, 2, next(n), at(1800.5), user=user, computer=computer, Session=2),
        record(
            GP,
            4001,
            next(n),
            at(1850),
            activity=activity,
            computer=computer,
            IsMachine=0,
            PrincipalSamName="CONTOSO\\alice",
        ),
        cse(4016, next(n), at(1900), activity, FOLDER_REDIRECTION, computer=computer),
        cse(
            5016,
            next(n),
            at(4400),
            activity,
            FOLDER_REDIRECTION,
            computer=computer,
            CSEElaspedTimeInMilliSeconds=round(2500 * scale),
            ErrorCode=0,
        ),
        cse(4016, next(n), at(4410), activity, REGISTRY, computer=computer),
        cse(
            5016,
            next(n),
            at(4530),
            activity,
            REGISTRY,
            computer=computer,
            CSEElaspedTimeInMilliSeconds=round(120 * scale),
            ErrorCode=0,
        ),
        record(GP, 4018, next(n), at(4540), activity=activity, computer=computer, IsMachine=0),
        record(
            GP,
            5018,
            next(n),
            at(5790),
            activity=activity,
            computer=computer,
            IsMachine=0,
            ScriptElaspedTimeInSeconds=round(1.25 * scale),
            ErrorCode=0,
        ),
        record(
            GP,
            8001,
            next(n),
            at(5850),
            activity=activity,
            computer=computer,
            IsMachine=0,
            PolicyElaspedTimeInSeconds=round(4 * scale),
            ErrorCode=0,
        ),
        record(
            SHELL,
            9705,
            next(n),
            at(7350),
            user=user,
            computer=computer,
            Key="Software\\Microsoft\\Windows\\CurrentVersion\\Run",
        ),
    ]


def collect(records: list[dict[str, Any]]) -> list[Measurement]:
    """The records decoded by the parser's own JSON path, then paired by its collector."""
    collector = Collector()
    for item in records:
        event = _event(item)
        assert event is not None, item
        collector.add(event)
    return collector.measurements()

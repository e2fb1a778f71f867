"""The event log pairing rules for channels no public sample exists of.

User Profile Service, Folder Redirection, shutdown: events built as the
library's JSON gives them.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from tests.workers.pipeline.parsers.evtx.helpers import _from_ticks, _ticks
from workers.pipeline.parsers.evtx.collector import Collector
from workers.pipeline.parsers.evtx.events import Event
from workers.pipeline.records import Measurement

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

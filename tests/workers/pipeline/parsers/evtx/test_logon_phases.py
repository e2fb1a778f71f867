"""A logon's phases: extensions, scripts, the inferred shell start and the total, on built and real logs."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

from tests.workers.pipeline.parsers.evtx.built_logon import (
    GP,
    REGISTRY,
    SHELL,
    T0,
    UPS,
    collect,
    cse,
    full_logon,
    record,
)
from tests.workers.pipeline.parsers.evtx.helpers import GP_DIRTY, GP_SMALL, _records
from tests.workers.pipeline.parsers.evtx.test_real_logs import _parse

PHASES = ("logon.cse_ms", "logon.scripts_ms", "logon.shell_ms", "logon.total_ms")


def _by_metric(measurements):
    return {(m.metric, m.subject): m.value for m in measurements}


def test_a_logon_with_every_phase_gives_each_phase_once() -> None:
    got = _by_metric(collect(full_logon()))
    assert got == {
        ("profile.load_ms", ""): 1800.5,
        ("gpo.processing_ms", "user"): 4000.0,  # 4001 at 1,850 ms -> 8001 at 5,850 ms
        ("logon.cse_ms", "Folder Redirection"): 2500.0,  # 4016 at 1,900 -> 5016 at 4,400
        ("logon.cse_ms", "Registry"): 120.0,
        ("logon.scripts_ms", ""): 1250.0,  # 4018 at 4,540 -> 5018 at 5,790
        ("logon.shell_ms", ""): 1500.0,  # 8001 at 5,850 -> Shell-Core 9705 at 7,350 (inferred)
        ("logon.total_ms", ""): 7350.0,  # profile event 1 at 0 -> 9705 at 7,350
    }


def test_phases_are_stamped_at_their_start_on_the_computer_that_logged_them() -> None:
    rows = {(m.metric, m.subject): m for m in collect(full_logon(computer="VDI-09"))}
    assert rows[("logon.cse_ms", "Folder Redirection")].time == T0 + timedelta(milliseconds=1900)
    assert rows[("logon.shell_ms", "")].time == T0 + timedelta(milliseconds=5850)
    assert rows[("logon.total_ms", "")].time == T0
    assert {m.host for m in rows.values()} == {"VDI-09"}
    assert {m.unit for m in rows.values()} == {"ms"}


def test_two_users_logging_on_together_keep_their_own_phases() -> None:
    alice = full_logon(user="S-1-5-21-1001", activity="A1", first=1)
    bob = full_logon(user="S-1-5-21-1002", activity="B2", first=101, offset=200.0, scale=2.0)
    merged = sorted(alice + bob, key=lambda r: r["timestamp"])
    measurements = collect(merged)
    values: Counter[tuple[str, str, float]] = Counter()
    for m in measurements:
        values[(m.metric, m.subject, m.value)] += 1
    # bob's phases are twice alice's; each logon's shell start is its own user's 9705
    for metric, subject, base in (
        ("logon.cse_ms", "Folder Redirection", 2500.0),
        ("logon.cse_ms", "Registry", 120.0),
        ("logon.scripts_ms", "", 1250.0),
        ("logon.shell_ms", "", 1500.0),
        ("logon.total_ms", "", 7350.0),
        ("gpo.processing_ms", "user", 4000.0),
    ):
        assert values[(metric, subject, base)] == 1, metric
        assert values[(metric, subject, 2 * base)] == 1, metric
    assert [m.repetition for m in measurements if m.metric == "logon.total_ms"] == [1, 2]


def test_without_a_shell_event_there_is_no_shell_phase_and_no_total() -> None:
    records = [r for r in full_logon() if '"EventID": 9705' not in r["data"]]
    got = _by_metric(collect(records))
    assert ("logon.shell_ms", "") not in got and ("logon.total_ms", "") not in got
    assert got[("logon.cse_ms", "Folder Redirection")] == 2500.0


def test_an_extension_whose_start_was_overwritten_uses_its_own_milliseconds() -> None:
    records = [
        record(GP, 4001, 1, 0, activity="A1", IsMachine=0),
        cse(5016, 2, 900, "A1", REGISTRY, CSEElaspedTimeInMilliSeconds=640, ErrorCode=0),
        cse(4016, 3, 1000, "A1", ("{X}", "Scripts")),
        cse(7016, 4, 4000, "A1", ("{X}", "Scripts"), CSEElaspedTimeInMilliSeconds=3000, ErrorCode=5),
        record(GP, 8001, 5, 4100, activity="A1", IsMachine=0),
    ]
    got = _by_metric(collect(records))
    assert got[("logon.cse_ms", "Registry")] == 640.0
    assert got[("logon.cse_ms", "Scripts")] == 3000.0  # an extension that failed (7016) still took the time


def test_extensions_of_a_background_refresh_are_no_logon_phase() -> None:
    records = [
        record(GP, 4007, 1, 0, activity="R1", IsMachine=0),
        cse(4016, 2, 10, "R1", REGISTRY),
        cse(5016, 3, 130, "R1", REGISTRY, CSEElaspedTimeInMilliSeconds=120),
        record(GP, 8007, 4, 200, activity="R1", IsMachine=0),
        record(UPS, 1, 5, 1000, user="S-1-5-21-7", Session=3),
        record(UPS, 2, 6, 1500, user="S-1-5-21-7", Session=3),
        record(SHELL, 9705, 7, 2600, user="S-1-5-21-7"),
    ]
    got = _by_metric(collect(records))
    assert not any(metric == "logon.cse_ms" for metric, _ in got)
    assert got[("gpo.processing_ms", "user periodic")] == 200.0
    # profile and shell alone: the shell runs from the profile's end (1,500) to the 9705 (2,600)
    assert got[("logon.shell_ms", "")] == 1100.0 and got[("logon.total_ms", "")] == 1600.0


def test_the_real_group_policy_logs_give_the_user_policy_phase_and_no_other() -> None:
    # Neither real log applies an extension or runs a script (their only GPO is an empty
    # Local Group Policy, events 5312/5313): their logons hold the policy phase alone.
    for path, logons in ((GP_SMALL, 1), (GP_DIRTY, 16)):
        ids = Counter(r.event_id for r in _records(path))
        assert ids[4001] == ids[8001] == logons
        assert not any(ids[i] for i in (4016, 5016, 6016, 7016, 4018, 5018))
        measurements = _parse(path)
        assert not [m for m in measurements if m.metric in PHASES]
        assert (
            len([m for m in measurements if (m.metric, m.subject) == ("gpo.processing_ms", "user")]) == logons
        )

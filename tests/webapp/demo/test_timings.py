"""The demo campaign's timings files, through the timings parser: the seed studies' figures reproduced."""

from __future__ import annotations

import itertools
import math
import statistics
from collections import defaultdict
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta

import pytest

from tests.webapp.demo.helpers import CAMPAIGN, _decoded
from webapp.demo.files import DemoUpload
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.timings import TimingsParser
from workers.pipeline.records import Measurement


def _timings(upload: DemoUpload) -> list[Measurement]:
    decoded = _decoded(upload.content)
    parser = TimingsParser()
    assert parser.detect(decoded.head_bytes, decoded.head_text) == 90
    return list(parser.parse(decoded, ParseContext(filename=upload.filename, host=upload.host)).measurements)


def _all_timings() -> list[Measurement]:
    return [m for upload in CAMPAIGN.uploads if upload.kind == "timings" for m in _timings(upload)]


def _means(
    measurements: list[Measurement], study: str
) -> dict[tuple[frozenset[tuple[str, str]], str], float]:
    """Mean duration per (scenario, timing name) of one study."""
    groups: dict[tuple[frozenset[tuple[str, str]], str], list[float]] = defaultdict(list)
    for m in measurements:
        assert m.scenario is not None
        if m.scenario["study"] == study:
            groups[frozenset(m.scenario.items()), m.metric].append(m.value)
    return {key: statistics.fmean(values) for key, values in groups.items()}


def _key(dims: Mapping[str, str]) -> frozenset[tuple[str, str]]:
    return frozenset(dims.items())


def test_it_parses_every_timings_file_with_the_timings_parser() -> None:
    counts = {u.filename: len(_timings(u)) for u in CAMPAIGN.uploads if u.kind == "timings"}
    assert counts == {
        "app-launch-baseline.json": 25,
        "app-launch-smb2.1-cpu0.json": 25,
        "app-launch-smb2.1-cpu50.json": 25,
        "app-launch-smb2.1-cpu100.json": 25,
        "app-launch-smb1-cpu0.json": 25,
        "app-launch-smb1-cpu50.json": 25,
        "app-launch-smb1-cpu100.json": 25,
        "ca_share_off.csv": 25,
        "ca_share_on.csv": 25,
        "copy_migration.json": 8,
        "logon_smb2.1.jsonl": 10,
        "logon_smb3.02.jsonl": 10,
    }
    for upload in CAMPAIGN.uploads:
        if upload.kind == "timings":
            for m in _timings(upload):
                assert m.unit == "ms"
                assert m.time.year == 2015
                assert m.scenario is not None
                assert upload.scenario.items() <= m.scenario.items()


@pytest.mark.parametrize(
    ("server_os", "dialect", "app", "factor"),
    [
        ("2008 R2", "2.1", "Freemind", 2.5),
        ("2008 R2", "2.1", "Firefox", 5.5),
        ("2008 R2", "2.1", "Excel", 5.5),
        ("2008 R2", "2.1", "PowerPoint", 1.05),
        ("2008 R2", "2.1", "Adobe Reader XI", 1.14),
        ("2003", "1", "Firefox", 178),
        ("2003", "1", "PowerPoint", 13.5),
        ("2003", "1", "Adobe Reader XI", 541),
    ],
)
def test_it_reproduces_the_app_launch_factors_of_a_busy_server(
    server_os: str, dialect: str, app: str, factor: float
) -> None:
    means = _means(_all_timings(), "app-launch")
    baseline = means[_key({"study": "app-launch", "redirection": "none"}), f"{app} launch"]
    busy = _key(
        {
            "study": "app-launch",
            "redirection": "on",
            "server_os": server_os,
            "smb_dialect": dialect,
            "server_cpu_load": "100",
        }
    )
    assert round(means[busy, f"{app} launch"] / baseline, 6) == factor


def test_it_times_each_app_launch_five_times_with_spread() -> None:
    groups: dict[tuple[frozenset[tuple[str, str]], str], list[Measurement]] = defaultdict(list)
    for m in _all_timings():
        assert m.scenario is not None
        if m.scenario["study"] == "app-launch":
            groups[_key(m.scenario), m.metric].append(m)
    assert len(groups) == 7 * 5
    for rows in groups.values():
        assert sorted(m.repetition for m in rows) == [1, 2, 3, 4, 5]
        values = [m.value for m in rows]
        assert 0.01 < statistics.stdev(values) / statistics.fmean(values) < 0.1
        assert all(round(value, 3) == value for value in values)


def test_it_slows_app_launch_as_the_server_gets_busier() -> None:
    means = _means(_all_timings(), "app-launch")
    for server_os, dialect in (("2008 R2", "2.1"), ("2003", "1")):
        for app in ("Freemind", "Firefox", "Excel", "PowerPoint", "Adobe Reader XI"):
            by_load = [
                means[
                    _key(
                        {
                            "study": "app-launch",
                            "redirection": "on",
                            "server_os": server_os,
                            "smb_dialect": dialect,
                            "server_cpu_load": load,
                        }
                    ),
                    f"{app} launch",
                ]
                for load in ("0", "50", "100")
            ]
            assert by_load == sorted(by_load)


@pytest.mark.parametrize(
    ("test", "factor"),
    [
        ("synthetic file creation (1 GB, 1 file)", 1.475),
        ("robocopy (1 GB, 1 file)", 1.38),
        ("Copy-Item -Force -Recurse (2 GB, 1,238 files, 96 folders)", 1.465),
        ("folder redirection full sync, event 1006 to 1001 (5 GB, 4,609 files, 143 folders)", 1.26),
        ("in-house file generator app", 8.6),
    ],
)
def test_it_reproduces_how_much_faster_ordinary_shares_are_than_ca_shares(test: str, factor: float) -> None:
    means = _means(_all_timings(), "ca-share")
    common = {"study": "ca-share", "server_os": "2012 R2", "smb_dialect": "3.02"}
    on = means[_key({**common, "ca_share": "on"}), test]
    off = means[_key({**common, "ca_share": "off"}), test]
    assert round(on / off, 6) == factor


def test_it_reproduces_the_copy_times_to_complete() -> None:
    rows = [m for m in _all_timings() if m.scenario is not None and m.scenario["study"] == "copy-migration"]
    found = [
        (m.scenario["technique"], m.scenario["dataset"], m.scenario["options"], m.repetition, m.value)
        for m in rows
        if m.scenario is not None
    ]
    robocopy = "robocopy d:\\ \\\\host\\d$"
    assert found == [
        (
            "robocopy",
            "95 GiB, 100,000,000 files of 1 KiB",
            f"{robocopy} * /s /copyall /zb /mt:128",
            1,
            28_812_000,
        ),
        ("robocopy", "1.45 TiB, 1 file", f"{robocopy} hugefile /copyall /zb", 1, 10_106_000),
        ("robocopy", "1.45 TiB, 1 file", f"{robocopy} hugefile /copyall /j /zb", 1, 9_488_000),
        (
            "robocopy",
            "1.45 TiB, 1,110,510 files of 1 KiB to 10 GiB",
            f"{robocopy} * /s /copyall /zb /mt:128",
            1,
            1_500_000,
        ),
        ("robocopy", "1.45 TiB, 1 file", f"{robocopy} hugefile /copyall /j", 1, 923_000),
        ("storage_replica", "1.45 TiB volume", "volume replication", 1, 867_000),
        ("storage_replica", "1.45 TiB volume", "volume replication", 2, 869_000),
        ("storage_replica", "1.45 TiB volume", "volume replication", 3, 863_000),
    ]
    for earlier, later in itertools.pairwise(rows):
        assert earlier.time + timedelta(milliseconds=earlier.value) <= later.time


def test_it_shows_no_significant_logon_difference_between_smb_21_and_302() -> None:
    logons: dict[str, list[float]] = defaultdict(list)
    for m in _all_timings():
        if m.scenario is not None and m.scenario["study"] == "logon":
            assert m.metric == "logon"
            logons[m.scenario["smb_dialect"]].append(m.value)
    old, new = logons["2.1"], logons["3.02"]
    assert len(old) == len(new) == 10
    # Welch's t statistic: far from the ~2.1 a 5 % two-sided test would need.
    t = (statistics.fmean(old) - statistics.fmean(new)) / math.sqrt(
        statistics.variance(old) / len(old) + statistics.variance(new) / len(new)
    )
    assert abs(t) < 1
    assert statistics.fmean(old) == pytest.approx(statistics.fmean(new), rel=0.01)


def test_it_times_timings_in_2015_in_order() -> None:
    for upload in CAMPAIGN.uploads:
        if upload.kind == "timings":
            times = [m.time for m in _timings(upload)]
            assert times == sorted(times)
            assert (
                datetime(2015, 1, 1, tzinfo=UTC) <= times[0] <= times[-1] < datetime(2016, 1, 1, tzinfo=UTC)
            )

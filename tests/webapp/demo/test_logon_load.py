"""The "Logon load 2015" demo campaign: four clients' logon times per load step and the server's CPU, read back
from the generated files through the real parsers and compared with the figures its docstring states."""

from __future__ import annotations

import itertools
import statistics
from collections import defaultdict

from tests.webapp.demo.helpers import _decoded
from tests.webapp.demo.test_campaign import _saturation, _steps
from webapp.demo.generate import demo_campaigns, logon_load_campaign
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.timings import TimingsParser

CAMPAIGN = logon_load_campaign()
SERVERS = {u.scenario["smb_dialect"]: u for u in CAMPAIGN.uploads if u.kind == "perfmon_csv"}
CLIENTS = [u for u in CAMPAIGN.uploads if u.kind == "timings"]


def _per_step(dialect: str, name: str) -> dict[int, dict[str, list[float]]]:
    """users -> client -> the durations of ``name`` that client timed inside that step's window."""
    windows = SERVERS[dialect].steps
    found: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for upload in CLIENTS:
        if upload.scenario["smb_dialect"] != dialect:
            continue
        parsed = TimingsParser().parse(_decoded(upload.content), ParseContext(filename=upload.filename))
        for row in parsed.measurements:
            if row.metric != name:
                continue
            (users,) = [users for users, start, end in windows if start <= row.time < end]
            found[users][upload.host].append(row.value)
    return found


def test_it_is_a_second_campaign_loaded_after_the_first() -> None:
    assert [c.slug for c in demo_campaigns()] == ["demo", "demo-logon"]
    assert len(CAMPAIGN.uploads) == 2 + 2 * 4 + 2 * 4  # + the logon phase exports (test_logon_phases)
    assert sorted({u.host for u in CLIENTS}) == ["LG01", "LG02", "LG03", "LG04"]
    assert {u.run for u in CLIENTS} == {u.run for u in SERVERS.values()}
    assert logon_load_campaign() == CAMPAIGN


def test_every_step_holds_three_logons_from_each_client_and_their_means_are_the_stated_ones() -> None:
    expected = {
        "2.1": [1000, 1000, 1000, 1000, 1600, 2200, 2800, 3400, 4000, 4600],
        "3.02": [1000, 1000, 1000, 1000, 1000, 1000, 1000, 1400, 2200, 3000],
    }
    for dialect, means in expected.items():
        steps = _per_step(dialect, "logon")
        assert sorted(steps) == list(range(100, 1001, 100))
        for users, mean in zip(sorted(steps), means, strict=True):
            by_client = steps[users]
            assert {host: len(values) for host, values in by_client.items()} == dict.fromkeys(
                ["LG01", "LG02", "LG03", "LG04"], 3
            )
            everything = [v for values in by_client.values() for v in values]
            assert round(statistics.fmean(everything), 6) == mean
            # Each client's own mean is off by its offset (+60, -60, +25, -25 ms), and they cancel.
            offsets = {host: round(statistics.fmean(v) - mean, 6) for host, v in by_client.items()}
            assert offsets == {"LG01": 60, "LG02": -60, "LG03": 25, "LG04": -25}


def test_logon_time_crosses_its_baseline_plus_one_second_where_the_docstring_says() -> None:
    def crossing(dialect: str) -> float:
        steps = _per_step(dialect, "logon")
        means = [(u, statistics.fmean(v for vs in steps[u].values() for v in vs)) for u in sorted(steps)]
        threshold = means[0][1] + 1000
        for (u0, m0), (u1, m1) in itertools.pairwise(means):
            if m1 >= threshold:
                return u0 + (threshold - m0) / (m1 - m0) * (u1 - u0)
        raise AssertionError("not reached")

    assert round(crossing("2.1"), 1) == 566.7
    assert crossing("3.02") == 875.0


def test_the_server_cpu_crosses_80_percent_after_logon_over_smb_2_1_and_before_it_over_smb_3_02() -> None:
    smb21, smb302 = _steps(SERVERS["2.1"]), _steps(SERVERS["3.02"])
    assert [round(s.avg, 6) for s in smb21][7:9] == [77, 86]
    assert [round(s.avg, 6) for s in smb302][6:8] == [68, 84]
    assert round(_saturation(smb21) or 0, 1) == 833.3
    assert _saturation(smb302) == 775.0

"""The demo's logon phase study: each client's event log XML export, read back through the real parser,
gives the per-phase means the module docstring and docs/logon_phases.md state."""

from __future__ import annotations

import statistics
from collections import defaultdict

from tests.webapp.demo.helpers import _decoded
from webapp.demo import logon_phases
from webapp.demo.generate import logon_load_campaign
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.evtx.xml_parser import EvtxXmlParser
from workers.pipeline.records import Measurement

CAMPAIGN = logon_load_campaign()
EXPORTS = [u for u in CAMPAIGN.uploads if u.kind == "evtx_xml"]
PHASE = {
    ("profile.load_ms", ""): "profile",
    ("gpo.processing_ms", "user"): "group_policy",
    ("logon.cse_ms", "Registry"): "cse:Registry",
    ("logon.cse_ms", "Folder Redirection"): "cse:Folder Redirection",
    ("logon.scripts_ms", ""): "scripts",
    ("logon.shell_ms", ""): "shell",
    ("logon.total_ms", ""): "total",
}
# Stated in the module docstring and in docs/logon_phases.md ("The demo"), by hand.
STATED = {
    "none": {
        "profile": 1800,
        "group_policy": 1350,
        "cse:Registry": 120,
        "scripts": 850,
        "shell": 1400,
        "total": 4610,
    },
    "folder": {
        "profile": 2600,
        "group_policy": 2560,
        "cse:Registry": 120,
        "cse:Folder Redirection": 1200,
        "scripts": 850,
        "shell": 1400,
        "total": 6620,
    },
}


def _parsed(content: bytes) -> list[Measurement]:
    decoded = _decoded(content)
    parser = EvtxXmlParser()
    assert parser.detect(decoded.head_bytes, decoded.head_text) == 95
    return list(parser.parse(decoded, ParseContext()).measurements)


def _phases(redirection: str) -> dict[str, dict[str, list[float]]]:
    """phase -> host -> values, over the scenario's four exports."""
    found: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for upload in EXPORTS:
        if upload.scenario["redirection"] == redirection:
            for row in _parsed(upload.content):
                found[PHASE[row.metric, row.subject]][row.host or ""].append(row.value)
    return found


def test_one_utf16_wevtutil_export_per_client_and_scenario_added_after_the_load_runs() -> None:
    assert len(CAMPAIGN.uploads) == 2 + 2 * 4 + 2 * 4
    assert [u.kind for u in CAMPAIGN.uploads[-8:]] == ["evtx_xml"] * 8
    assert sorted((u.run, u.host) for u in EXPORTS) == sorted(
        (f"logon-phases-redirection-{r}", c)
        for r in ("none", "folder")
        for c in ("LG01", "LG02", "LG03", "LG04")
    )
    assert "redirection" in CAMPAIGN.dimensions
    for upload in EXPORTS:
        assert upload.scenario == {
            "study": "logon-phases",
            "server_os": "2012 R2",
            "smb_dialect": "3.02",
            "disk_type": "SSD",
            "av": "off",
            "redirection": upload.scenario["redirection"],
        }
        # As PowerShell 5 redirects wevtutil's output: UTF-16LE with a BOM, no declaration, no root.
        assert upload.content.startswith(b"\xff\xfe<\x00E\x00v\x00e\x00n\x00t\x00 \x00")
        text = upload.content.decode("utf-16")
        assert text.count("<Event xmlns=") == text.count("\r\n")
        assert (
            upload.filename == f"{upload.host}_logon_phases_redirection-{upload.scenario['redirection']}.xml"
        )
    assert logon_load_campaign() == CAMPAIGN  # deterministic


def test_every_phase_mean_is_the_stated_one_and_each_client_gives_it_too() -> None:
    for redirection, stated in STATED.items():
        phases = _phases(redirection)
        assert sorted(phases) == sorted(stated)
        for phase, mean in stated.items():
            by_host = phases[phase]
            assert {host: len(v) for host, v in by_host.items()} == {
                f"LG0{n}.contoso.local": 5 for n in range(1, 5)
            }
            everything = [v for values in by_host.values() for v in values]
            assert round(statistics.fmean(everything), 6) == mean, (redirection, phase)
            assert all(round(statistics.fmean(v), 6) == mean for v in by_host.values())
            assert len(set(everything)) > 1  # logons differ; only the mean is fixed
        assert {
            k: float(v) for k, v in logon_phases.expected_means(redirection).items() if v is not None
        } == stated


def test_profile_load_grows_with_folder_redirection_and_the_rest_but_policy_stays() -> None:
    none, folder = STATED["none"], STATED["folder"]
    assert round(folder["profile"] / none["profile"], 3) == 1.444
    assert round(folder["total"] / none["total"], 3) == 1.436
    # The whole logon is the profile load, 60 ms to the policy, the user policy and the shell start.
    for stated in (none, folder):
        assert stated["total"] == stated["profile"] + 60 + stated["group_policy"] + stated["shell"]
    assert "cse:Folder Redirection" not in _phases("none")


def test_system_time_keeps_seven_digits_and_records_count_up_per_channel() -> None:
    text = EXPORTS[0].content.decode("utf-16")
    assert "SystemTime='2015-11-30T22:00:00.9750162Z'" in text  # 09:00 AEDT, 1 December 2015
    assert text.count("<EventID>4001</EventID>") == text.count("<EventID>8001</EventID>") == 5
    assert text.count("<EventID>9705</EventID>") == 5 and text.count("<EventID>1</EventID>") == 5

"""Event logs exported as XML give the same measurements as the ``.evtx`` file, through the same collector.

The real logs in shared/fixtures are rendered to XML (see ``xml_exports``) in
the three shapes Windows writes; the built logons of ``built_logon`` carry
every phase. Bad input is refused with the line where it goes wrong.
"""

from __future__ import annotations

import io
from datetime import timedelta
from pathlib import Path

import pytest

from tests.paths import REPO
from tests.workers.pipeline.parsers.evtx.built_logon import GP, T0, collect, full_logon, record
from tests.workers.pipeline.parsers.evtx.helpers import DIAGNOSTICS, GP_DIRTY, GP_SMALL
from tests.workers.pipeline.parsers.evtx.xml_exports import built_events, export, real_events
from workers.pipeline.decode import decode
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.evtx import EvtxLogonParser, EvtxXmlParser
from workers.pipeline.records import Measurement
from workers.pipeline.registry import detect_parser

XML_FIXTURES = REPO / "tests" / "fixtures" / "eventlog_xml"
SHAPES = [("wevtutil", "utf-8"), ("wevtutil", "utf-16"), ("viewer", "utf-8"), ("get-winevent", "utf-16")]


def _parse_xml(data: bytes) -> list[Measurement]:
    parsed = EvtxXmlParser().parse(decode(lambda: io.BytesIO(data)), ParseContext())
    assert (parsed.parser, parsed.tool) == ("evtx_xml", "evtx")
    return list(parsed.measurements)


def _rows(measurements: list[Measurement]) -> list[tuple[object, ...]]:
    """What a measurement says, without its repetition number (the two paths order a wrapped log differently)."""
    return sorted((m.metric, m.subject, m.host, m.time, m.value, m.unit) for m in measurements)


@pytest.mark.parametrize(("shape", "encoding"), SHAPES, ids=[f"{s}-{e}" for s, e in SHAPES])
def test_it_is_detected_in_every_shape_and_encoding_windows_writes(shape: str, encoding: str) -> None:
    data = export(real_events(GP_DIRTY), shape, encoding)
    decoded = decode(lambda: io.BytesIO(data))
    assert detect_parser(decoded.head_bytes, decoded.head_text).name == "evtx_xml"


@pytest.mark.parametrize("path", [GP_DIRTY, GP_SMALL, DIAGNOSTICS], ids=lambda p: p.name)
@pytest.mark.parametrize(("shape", "encoding"), SHAPES, ids=[f"{s}-{e}" for s, e in SHAPES])
def test_a_real_log_exported_as_xml_gives_what_the_evtx_file_gives(
    path: Path, shape: str, encoding: str
) -> None:
    from_evtx = list(EvtxLogonParser().parse(lambda: path.open("rb"), ParseContext()).measurements)
    from_xml = _parse_xml(export(real_events(path), shape, encoding))
    assert len(from_xml) == len(from_evtx) > 0
    assert _rows(from_xml) == _rows(from_evtx)


def test_the_group_policy_log_gives_its_29_runs_numbered_in_time_order() -> None:
    # omerbenamram_GroupPolicy_Operational.evtx: 13 computer and 16 user 400x/800x pairs; the log
    # wrapped, so its first records are not its oldest. The XML path numbers each subject's runs
    # by start time, whatever order the export lists them in (Get-WinEvent: newest first).
    rows = _parse_xml(export(real_events(GP_DIRTY), "get-winevent", "utf-16"))
    for subject, count in (("computer", 13), ("user", 16)):
        mine = [m for m in rows if m.subject == subject]
        assert [m.repetition for m in mine] == list(range(1, count + 1))
        assert [m.time for m in mine] == sorted(m.time for m in mine)
    user = [m for m in rows if m.subject == "user"]
    # The first user logon run: 4001 (record 76) at 00:41:48.0657458, 8001 (record 87) at .2521963.
    assert (user[0].time.isoformat(), user[0].value) == ("2018-07-28T00:41:48.065746+00:00", 186.4505)
    assert {m.host for m in rows} == {"DESKTOP-0QT8017"}


def test_a_log_with_no_timings_is_refused_naming_its_channels_as_the_evtx_path_does() -> None:
    (security,) = built_events([record(("Microsoft-Windows-Security-Auditing", "Security"), 4624, 9, 0)])
    with pytest.raises(ParseError) as caught:
        _parse_xml(export([security], "viewer"))
    assert caught.value.message.startswith(
        "no logon or policy timings found in this event log export (channels seen: Security); expected "
        "Group Policy start/end events (4000-4007/8000-8007)"
    )


def test_a_built_logon_gives_every_phase_as_the_json_path_does() -> None:
    records = [
        *full_logon(computer="VDI-1", activity="A1"),
        *full_logon(computer="VDI-2", activity="A2", first=50, offset=60_000, scale=2),
    ]
    expected = collect(records)
    got = _parse_xml(export(built_events(records), "get-winevent", "utf-16"))
    assert got == expected
    phases = {
        (m.host, m.metric, m.subject): m.value for m in got if m.metric.startswith(("logon.", "profile."))
    }
    assert phases == {
        ("VDI-1", "profile.load_ms", ""): 1800.5,
        ("VDI-1", "logon.cse_ms", "Folder Redirection"): 2500.0,
        ("VDI-1", "logon.cse_ms", "Registry"): 120.0,
        ("VDI-1", "logon.scripts_ms", ""): 1250.0,
        ("VDI-1", "logon.shell_ms", ""): 1500.0,
        ("VDI-1", "logon.total_ms", ""): 7350.0,
        ("VDI-2", "profile.load_ms", ""): 3601.0,
        ("VDI-2", "logon.cse_ms", "Folder Redirection"): 5000.0,
        ("VDI-2", "logon.cse_ms", "Registry"): 240.0,
        ("VDI-2", "logon.scripts_ms", ""): 2500.0,
        ("VDI-2", "logon.shell_ms", ""): 3000.0,
        ("VDI-2", "logon.total_ms", ""): 14700.0,
    }


def test_nine_fraction_digits_as_event_viewer_writes_them_are_read_to_the_tick() -> None:
    start = record(GP, 4001, 1, 0, activity="{A}", IsMachine=0)
    end = record(GP, 8001, 2, 1234.5678, activity="{A}", IsMachine=0)
    events = [e.replace("Z'/>", "00Z'/>", 1) for e in built_events([start, end])]
    assert "SystemTime='2024-05-06T08:00:01.234567800Z'" in events[1]
    (row,) = _parse_xml(export(events, "viewer"))
    assert (row.metric, row.subject, row.time, row.value) == ("gpo.processing_ms", "user", T0, 1234.5678)


def test_user_data_values_are_read_like_event_data() -> None:
    start = record(GP, 4001, 1, 0, activity="{A}")
    end = record(GP, 8001, 2, 500, activity="{A}")
    events = built_events([start, end])
    events[0] = events[0].replace(
        "<EventData></EventData>",
        "<UserData><GPEvent xmlns='x'><IsMachine>1</IsMachine></GPEvent></UserData>",
    )
    (row,) = _parse_xml(export(events, "wevtutil"))
    assert (row.subject, row.value) == ("computer", 500.0)


def test_exports_appended_to_one_file_are_read_as_one() -> None:
    first = export(built_events(full_logon(computer="VDI-1", activity="A1")), "viewer")
    second = export(built_events(full_logon(computer="VDI-2", activity="A2", offset=60_000)), "viewer")
    rows = _parse_xml(first + second)
    totals = [(m.host, m.value, m.time - T0) for m in rows if m.metric == "logon.total_ms"]
    assert totals == [("VDI-1", 7350.0, timedelta(0)), ("VDI-2", 7350.0, timedelta(seconds=60))]


# --------------------------------------------------------------------------
# What is not an event export, and exports that are broken


def test_other_files_are_not_claimed() -> None:
    parser = EvtxXmlParser()
    for head in (
        "name,started_at,duration_ms\n",
        '{"samples": []}',
        '<?xml version="1.0"?>\n<Results><System><ComputerName>X</ComputerName></System></Results>',
        "<Event><System><EventID>1</EventID></System></Event>",  # no event namespace
        "",
    ):
        assert parser.detect(head.encode(), head) == 0, head
    raw = GP_DIRTY.read_bytes()[:4096]
    assert parser.detect(raw, raw.decode("latin-1")) == 0


def _refused(text: str) -> ParseError:
    with pytest.raises(ParseError) as caught:
        _parse_xml(text.encode("utf-8"))
    assert caught.value.parser == "evtx_xml"
    return caught.value


def test_xml_that_is_not_well_formed_is_refused_with_its_line() -> None:
    events = built_events(full_logon())
    text = "\n".join(events[:3]) + "\n" + events[3].replace("</EventID>", "</EventId>") + "\n"
    failure = _refused(text)
    assert failure.line == 4
    assert "not well-formed: mismatched tag" in failure.message


def test_a_truncated_export_names_the_event_it_ends_in() -> None:
    events = built_events(full_logon())
    text = "\n".join(events[:5]) + "\n" + events[5][:200]
    failure = _refused(text)
    assert (
        failure.message == "the file ends inside the <Event> that starts on line 6; the export is truncated"
    )


def test_a_doctype_is_refused_so_no_entity_is_expanded() -> None:
    laughs = (
        '<?xml version="1.0"?>\n<!DOCTYPE Events [\n <!ENTITY a "aaaaaaaaaa">\n'
        ' <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">\n]>\n<Events>&b;</Events>\n'
    )
    failure = _refused(laughs)
    assert failure.line == 2
    assert "<!DOCTYPE" in failure.message and "refused" in failure.message


def test_an_export_without_events_says_what_was_expected() -> None:
    failure = _refused('<?xml version="1.0" encoding="utf-8"?>\n<Events>\n</Events>\n')
    assert failure.line == 1
    assert failure.message.startswith("no <Event> element found")


def test_values_are_cut_so_one_event_cannot_grow_without_bound() -> None:
    start = record(GP, 4001, 1, 0, activity="{A}", IsMachine=0, PrincipalSamName="x" * 100_000)
    end = record(GP, 8001, 2, 250, activity="{A}", IsMachine=0)
    (row,) = _parse_xml(export(built_events([start, end]), "wevtutil"))
    assert row.value == 250.0


def test_the_fixture_export_gives_its_one_user_logon_run() -> None:
    # tests/fixtures/eventlog_xml/MANIFEST.md: records 74..90 of the real Group Policy log, 4001 at
    # 00:41:48.0657458 and 8001 at 00:41:48.2521963, as wevtutil writes them, UTF-16LE with a BOM.
    data = (
        XML_FIXTURES / "omerbenamram_GroupPolicy_Operational_records_74-90_wevtutil_utf16.xml"
    ).read_bytes()
    assert data.startswith(b"\xff\xfe<\x00E\x00v\x00e\x00n\x00t\x00")
    decoded = decode(lambda: io.BytesIO(data))
    assert detect_parser(decoded.head_bytes, decoded.head_text).name == "evtx_xml"
    (row,) = _parse_xml(data)
    assert (row.metric, row.subject, row.host, row.repetition) == (
        "gpo.processing_ms",
        "user",
        "DESKTOP-0QT8017",
        1,
    )
    assert (row.time.isoformat(), row.value) == ("2018-07-28T00:41:48.065746+00:00", 186.4505)

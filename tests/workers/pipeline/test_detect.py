"""Auto-detection picks the right parser for every real fixture from content alone."""

from __future__ import annotations

import io

import pytest

from tests.paths import FIXTURES
from workers.pipeline.decode import decode
from workers.pipeline.errors import ParseError
from workers.pipeline.registry import PARSERS, all_parsers, detect_parser

EXPECTED = {
    "perfmon_csv": "perfmon_csv",
    "diskspd_txt": "diskspd_text",
    "diskspd_xml": "diskspd_xml",
    "fio_json": "fio_json",
    "robocopy": "robocopy",
    "eventlog_logon": "evtx_logon",
}
FILES = sorted(p for folder in EXPECTED for p in (FIXTURES / folder).iterdir())


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.name}" for p in FILES])
def test_it_detects_each_real_file_by_content(path):
    decoded = decode(lambda: io.BytesIO(path.read_bytes()))
    assert detect_parser(decoded.head_bytes, decoded.head_text).name == EXPECTED[path.parent.name]


def test_the_file_name_plays_no_part(tmp_path):
    source = FIXTURES / "perfmon_csv" / "narmadha_DataCollector01_LogicalDisk_IST.csv"
    renamed = tmp_path / "results.json"
    renamed.write_bytes(source.read_bytes())
    decoded = decode(lambda: io.BytesIO(renamed.read_bytes()))
    assert detect_parser(decoded.head_bytes, decoded.head_text).name == "perfmon_csv"


def test_a_format_we_do_not_read_is_refused_clearly():
    path = FIXTURES / "get_counter" / "martin11011_dotnet-counters_deDE.csv"
    decoded = decode(lambda: io.BytesIO(path.read_bytes()))
    with pytest.raises(ParseError, match="could not recognise this file's format"):
        detect_parser(decoded.head_bytes, decoded.head_text)


TIES = [
    # (head scoring the same for two parsers, the one detection picks, the one it passes over)
    ("name,started_at,duration_ms\nMicrosoft File Server Capacity Tool\n", "timings", "fsct"),
    (
        "Command Line: diskspd.exe -b4K C:\\t.dat\n   ROBOCOPY     ::     Robust File Copy\n",
        "robocopy",
        "diskspd_text",
    ),
]


@pytest.mark.parametrize(("head", "winner", "loser"), TIES, ids=[f"{w}-over-{lo}" for _, w, lo in TIES])
def test_a_tie_goes_to_the_parser_listed_first(head, winner, loser):
    decoded = decode(lambda: io.BytesIO(head.encode()))
    parsers = all_parsers()
    scores = {name: parsers[name].detect(decoded.head_bytes, decoded.head_text) for name in (winner, loser)}
    assert scores[winner] == scores[loser] > 0
    assert detect_parser(decoded.head_bytes, decoded.head_text).name == winner
    assert [p.name for p in PARSERS].index(winner) < [p.name for p in PARSERS].index(loser)

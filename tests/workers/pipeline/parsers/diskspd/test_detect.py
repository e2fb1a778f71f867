"""Detection of DiskSpd text reports and XML results, and the parsers' registry names."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.paths import FIXTURES
from tests.workers.pipeline.parsers.diskspd.helpers import TEXT, TEXT_FILES, XML_FILES, XMLP, _decoded


def test_detect_picks_each_diskspd_layout() -> None:
    for path in TEXT_FILES:
        decoded = _decoded(path)
        assert TEXT.detect(decoded.head_bytes, decoded.head_text) == 90, path.name
        assert XMLP.detect(decoded.head_bytes, decoded.head_text) == 0, path.name
    for path in XML_FILES:
        decoded = _decoded(path)
        assert XMLP.detect(decoded.head_bytes, decoded.head_text) == 95, path.name
        assert TEXT.detect(decoded.head_bytes, decoded.head_text) == 0, path.name


OTHER_FORMATS = [
    path
    for folder in ("perfmon_csv", "fio_json", "robocopy", "get_counter", "eventlog_logon")
    for path in sorted((FIXTURES / folder).glob("*"))
]


@pytest.mark.parametrize("path", OTHER_FORMATS, ids=lambda p: p.name)
def test_detect_leaves_other_tools_files_alone(path: Path) -> None:
    decoded = _decoded(path)
    assert TEXT.detect(decoded.head_bytes, decoded.head_text) == 0
    assert XMLP.detect(decoded.head_bytes, decoded.head_text) == 0


@pytest.mark.parametrize(
    "text",
    [
        '[{"name": "logon", "started_at": "2015-07-01T10:15:00+10:00", "duration_ms": 38412.5}]',
        "name,started_at,duration_ms\nlogon,2015-07-01T10:15:00+10:00,38412.5\n",
        "Days              : 0\nHours             : 0\nTotalMilliseconds : 1234.5\n",
        '<?xml version="1.0"?>\n<Results><Other/></Results>\n',
    ],
)
def test_detect_leaves_timings_and_other_xml_alone(text: str) -> None:
    decoded = _decoded(text.encode())
    assert TEXT.detect(decoded.head_bytes, decoded.head_text) == 0
    assert XMLP.detect(decoded.head_bytes, decoded.head_text) == 0


def test_the_parsers_have_their_registry_names() -> None:
    assert (TEXT.name, TEXT.binary) == ("diskspd_text", False)
    assert (XMLP.name, XMLP.binary) == ("diskspd_xml", False)

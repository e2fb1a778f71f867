"""Detection of robocopy logs among every real fixture and timings files."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.paths import FIXTURES
from tests.workers.pipeline.parsers.robocopy.helpers import (
    PARSER,
    RIPVANNWINKLER,
    ROBOCOPY,
    _decoded_file,
    _text,
)


@pytest.mark.parametrize("path", sorted(ROBOCOPY.iterdir()), ids=lambda path: path.name[:24])
def test_it_claims_every_real_robocopy_log(path: Path) -> None:
    decoded = _decoded_file(path)
    assert PARSER.detect(decoded.head_bytes, decoded.head_text) == 90


OTHER_FORMATS = sorted(
    path for path in FIXTURES.glob("*/*") if path.parent.name != "robocopy" and path.is_file()
)


@pytest.mark.parametrize("path", OTHER_FORMATS, ids=lambda path: f"{path.parent.name}/{path.name[:24]}")
def test_it_does_not_claim_other_tools_files(path: Path) -> None:
    decoded = _decoded_file(path)
    assert PARSER.detect(decoded.head_bytes, decoded.head_text) == 0


@pytest.mark.parametrize(
    "text",
    [
        "name,started_at,duration_ms\nlogon,2015-07-01T10:15:00+10:00,38412.5\n",
        '[{"name": "logon", "started_at": "2015-07-01T00:20:00Z", "duration_ms": 37990}]',
        "Days              : 0\nHours             : 0\nTotalMilliseconds : 1234.5678\n",
        "",
    ],
    ids=["timings-csv", "timings-json", "measure-command", "empty"],
)
def test_it_does_not_claim_timings_files(text: str) -> None:
    assert PARSER.detect(text.encode(), text) == 0


def test_it_claims_a_summary_without_banner_or_header() -> None:
    text = _text(RIPVANNWINKLER)
    summary = text[text.index("               Total") :]
    assert PARSER.detect(summary.encode(), summary) == 90

"""Detection of perfmon CSV logs by content, and dotnet-counters CSV told apart."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.workers.pipeline.parsers.perfmon.helpers import (
    DOTNET_COUNTERS,
    INDIA,
    PARSER,
    PERFMON,
    _decoded_bytes,
    _decoded_file,
    _error,
)


@pytest.mark.parametrize("path", sorted(PERFMON.iterdir()), ids=lambda path: path.name[:24])
def test_it_claims_every_real_perfmon_csv(path: Path) -> None:
    decoded = _decoded_file(path)
    assert PARSER.detect(decoded.head_bytes, decoded.head_text) == 100


def test_it_does_not_claim_dotnet_counters_csv_which_is_another_format() -> None:
    decoded = _decoded_file(DOTNET_COUNTERS)
    assert decoded.head_text.startswith("Timestamp,Provider,Counter Name")
    assert PARSER.detect(decoded.head_bytes, decoded.head_text) == 0


def test_it_refuses_to_parse_dotnet_counters_csv_at_its_first_cell() -> None:
    error = _error(_decoded_file(DOTNET_COUNTERS))
    assert (error.line, error.column) == (1, 1)
    assert "'Timestamp'" in error.message
    assert "(PDH-CSV 4.0)" in error.message


def test_it_detects_by_content_through_a_bom_and_utf16() -> None:
    text = INDIA.read_text(encoding="utf-8")
    for data in (b"\xef\xbb\xbf" + text.encode(), text.encode("utf-16")):
        decoded = _decoded_bytes(data)
        assert PARSER.detect(decoded.head_bytes, decoded.head_text) == 100
    unquoted = b"(PDH-CSV 4.0) (UTC)(0),\\\\H\\Memory\\Available MBytes\r\n"
    assert PARSER.detect(unquoted, unquoted.decode()) == 100
    assert PARSER.detect(b'"Time","Value"\r\n', '"Time","Value"\r\n') == 0

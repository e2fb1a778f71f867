"""DiskSpd text reports broken on purpose: truncated, mis-encoded, bad numbers, garbage."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.workers.pipeline.parsers.diskspd.helpers import (
    AZURE,
    LENOVO,
    NO_COMMAND,
    STARTED,
    TEXT,
    XMLP,
    _decoded,
    _error,
    _read_text,
)


def _cut_before(path: Path, marker: str, occurrence: int = 1, keep: int = 0) -> bytes:
    text = _read_text(path)
    index = -1
    for _ in range(occurrence):
        index = text.index(marker, index + 1)
    return text[: index + keep].encode()


@pytest.mark.parametrize(
    ("marker", "occurrence", "keep", "missing"),
    [
        ("thread |", 1, 0, "Total IO table"),  # right after the "Total IO" title
        ("     1 |", 2, 0, "end of the Read IO table"),  # between two thread rows
        ("total:", 2, 0, "'total:' row of the Read IO table"),
        ("Write IO", 1, 0, "Write IO table"),
        ("total:", 3, 12, "end of the 'total:' row"),  # inside the total row's numbers
        ("max |", 1, 0, "'max' row of the latency table"),  # inside the percentile table
        ("  %-ile", 1, 0, "latency percentiles"),  # latency was measured, its table is gone
    ],
)
def test_a_report_truncated_mid_run_fails_clearly(
    marker: str, occurrence: int, keep: int, missing: str
) -> None:
    raw = _cut_before(AZURE, marker, occurrence, keep)
    failure = _error(TEXT, raw, extra={"started_at": STARTED})
    assert "truncated?" in failure.message
    assert missing in failure.message
    assert "timespan 1 (line 32)" in failure.message


def test_a_report_truncated_before_any_result_says_so() -> None:
    raw = _cut_before(NO_COMMAND, "Results for timespan")
    failure = _error(TEXT, raw)
    assert failure.message == "no results found (truncated?)"
    assert failure.line == raw.decode().count("\n")


def test_a_bad_number_is_located_to_its_cell() -> None:
    text = _read_text(NO_COMMAND)
    broken = text.replace("35686 |       4.64", "3568x |       4.64", 1)
    failure = _error(TEXT, broken.encode())
    line = broken.splitlines().index(next(row for row in broken.splitlines() if "3568x" in row)) + 1
    assert failure.line == line
    assert failure.column == broken.splitlines()[line - 1].index("3568x") + 1
    assert "I/Os" in failure.message


def test_a_wrongly_re_encoded_report_fails_clearly() -> None:
    # the cp1251 file read as UTF-8: the preamble does not decode
    failure = _error(TEXT, _decoded(LENOVO, encoding="utf-8"), extra={"started_at": STARTED})
    assert "not valid utf-8" in failure.message
    assert failure.line == 1  # the Russian preamble starts at once
    # one stray byte deep in an otherwise clean report: the line is the byte's, not the chunk's
    lines = NO_COMMAND.read_bytes().split(b"\n")
    lines[39] = lines[39] + b" \xff"
    stray = _error(TEXT, _decoded(b"\n".join(lines), encoding="utf-8"))
    assert stray.line == 40
    # a UTF-8 report read as UTF-16: nothing of DiskSpd is left
    mangled = _error(TEXT, _decoded(NO_COMMAND, encoding="utf-16-le"))
    assert "DiskSpd" in mangled.message or "utf-16" in mangled.message


def test_garbage_and_empty_files_fail_clearly() -> None:
    garbage = random.Random(7).randbytes(20_000)
    assert _error(TEXT, garbage).message
    assert _error(XMLP, garbage).message
    assert _error(TEXT, b"").message == "the file is empty"
    assert _error(XMLP, b"").message == "the file is empty"
    prose = _error(TEXT, b"Just some notes about a disk test.\r\nNothing else.\r\n")
    assert prose.message.startswith("not a DiskSpd text report")
    assert prose.line == 1

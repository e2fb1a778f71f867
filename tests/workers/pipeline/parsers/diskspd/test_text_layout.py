"""The DiskSpd text parser: start times, and the layouts a report arrives in.

Console-wrapped, re-encoded, without its command line or input parameters,
appended runs and profiles with several timespans.
"""

from __future__ import annotations

import codecs
import re
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.workers.pipeline.parsers.diskspd.helpers import (
    AZURE,
    NO_COMMAND,
    STARTED,
    STARTED_UTC,
    TEXT,
    TEXT_FILES,
    V220,
    _decoded,
    _error,
    _parse,
    _read_text,
    _text,
    _values,
)
from workers.pipeline.records import Measurement


def test_it_needs_started_at_when_the_report_records_no_time() -> None:
    failure = _error(TEXT, AZURE)
    assert "started_at" in failure.message
    assert "no start time" in failure.message
    naive = _error(TEXT, AZURE, extra={"started_at": "2015-07-01T10:15:00"})
    assert "no UTC offset" in naive.message
    parsed = _parse(TEXT, AZURE, extra={"started_at": "2015-07-01T10:15:00"}, timezone="Australia/Melbourne")
    assert {item.time for item in parsed.measurements} == {STARTED_UTC}
    bad = _error(TEXT, AZURE, extra={"started_at": "yesterday"})
    assert "ISO 8601" in bad.message


def test_the_files_own_start_time_wins_over_started_at() -> None:
    parsed = _text(NO_COMMAND)
    assert {item.time for item in parsed.measurements} == {datetime(2021, 4, 16, 19, 3, 38, tzinfo=UTC)}


def test_an_implausible_recorded_time_falls_back_to_started_at() -> None:
    raw = NO_COMMAND.read_bytes().replace(b"2021/04/16 19:03:38", b"1601/01/01 00:00:00")
    assert {item.time for item in _text(raw).measurements} == {STARTED_UTC}
    failure = _error(TEXT, raw)
    assert "implausible" in failure.message


# --------------------------------------------------------------------------
# Layout variations


def _hard_wrap(text: str, width: int) -> str:
    out = []
    for line in text.splitlines():
        out.extend([line[i : i + width] for i in range(0, len(line), width)] or [""])
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("path", TEXT_FILES, ids=lambda p: p.name)
@pytest.mark.parametrize("width", [80, 79, 100])
def test_it_reads_a_report_a_console_wrapped_anywhere(path: Path, width: int) -> None:
    original = _text(path)
    wrapped = _text(_hard_wrap(_read_text(path), width).encode("utf-8"))
    assert _values(wrapped) == _values(original)
    assert wrapped.run_attributes == original.run_attributes


def test_tabs_and_spaces_are_alike() -> None:
    text = _read_text(V220)
    spaced = text.replace("\t", "    ").encode()
    assert _values(_text(spaced)) == _values(_text(V220))
    tabbed = re.sub(r"(?m)^ {8}", "\t", _read_text(NO_COMMAND)).encode()
    assert _values(_text(tabbed)) == _values(_text(NO_COMMAND))
    assert _text(tabbed).run_attributes == _text(NO_COMMAND).run_attributes


@pytest.mark.parametrize("path", [AZURE, NO_COMMAND, V220], ids=lambda p: p.name)
def test_it_detects_and_reads_crlf_utf16_and_bom_encodings_alike(path: Path) -> None:
    text = _read_text(path)
    expected = _values(_text(path))
    crlf = text.replace("\n", "\r\n")
    for raw in (
        codecs.BOM_UTF16_LE + crlf.encode("utf-16-le"),
        codecs.BOM_UTF8 + crlf.encode(),
        crlf.encode(),
    ):
        decoded = _decoded(raw)
        assert TEXT.detect(decoded.head_bytes, decoded.head_text) == 90
        assert _values(_text(raw)) == expected
    bare = text[text.index("Input parameters:") :].replace("\n", "\r\n")
    if "Command Line:" in bare:
        return
    decoded = _decoded(bare.encode())  # no command line: "Input parameters:" + "Total IO" decide
    assert TEXT.detect(decoded.head_bytes, decoded.head_text) == 90


def test_it_falls_back_to_the_command_line_without_input_parameters() -> None:
    text = _read_text(AZURE)
    start, end = text.index("Input parameters:"), text.index("Results for timespan")
    cut = (text[:start] + text[end:]).encode()
    assert _text(cut).run_attributes == _text(AZURE).run_attributes
    assert _values(_text(cut)) == _values(_text(AZURE))


def test_it_keeps_what_it_can_know_without_command_line_or_input_parameters() -> None:
    text = _read_text(AZURE)
    bare = text[text.index("Results for timespan") :].encode()
    parsed = _text(bare)
    # block size from bytes / I/Os, threads from the results
    assert parsed.run_attributes == {"block_size": "4096", "threads": "2"}
    assert _values(parsed) == _values(_text(AZURE))
    # two bare results pasted one after the other: two runs of one parameter set, back to back
    twice = _text(bare + b"\n" + bare)
    assert {(m.repetition, m.time) for m in twice.measurements} == {
        (1, STARTED_UTC),
        (2, STARTED_UTC + timedelta(seconds=600)),
    }
    assert len({tuple(sorted((m.params or {}).items())) for m in twice.measurements}) == 1


def test_it_reads_appended_runs_each_with_its_own_parameters() -> None:
    raw = AZURE.read_bytes() + b"\r\nPS C:\\> next\r\n" + V220.read_bytes() + AZURE.read_bytes()
    parsed = _text(raw)
    runs: dict[tuple[Any, ...], list[Measurement]] = defaultdict(list)
    for item in parsed.measurements:
        assert item.params is not None
        runs[(item.time, item.repetition, tuple(sorted(item.params.items())))].append(item)
    assert len(runs) == 3
    times = sorted(runs, key=lambda key: key[0])
    # the first Azure run at started_at; the 2.2.0 run at its own start time; the second
    # Azure run after the first two (605 s + 15 s), as repetition 2 of the same parameters
    assert [key[0] for key in times] == [
        STARTED_UTC,
        STARTED_UTC + timedelta(seconds=620),
        datetime(2026, 6, 22, 22, 16, 45, tzinfo=UTC),
    ]
    assert [key[1] for key in times] == [1, 2, 1]
    by_run = {key: {(m.subject, m.metric): m.value for m in items} for key, items in runs.items()}
    assert by_run[times[0]] == by_run[times[1]] == _values(_text(AZURE))
    assert by_run[times[2]] == _values(_text(V220))
    assert dict(times[2][2])["threads"] == "4"
    assert "command_line" not in parsed.run_attributes  # two different command lines


def test_it_reads_a_profile_with_two_timespans() -> None:
    text = _read_text(NO_COMMAND)
    system = text.index("System information:")
    timespan = text[text.index("        timespan:   1") : system]
    second = timespan.replace("timespan:   1", "timespan:   2").replace(
        "block size: 4096", "block size: 8192"
    )
    results = text[text.index("Results for timespan 1:") :]
    raw = (
        text[:system] + second + text[system:] + "\n" + results.replace("timespan 1:", "timespan 2:")
    ).encode()
    parsed = _text(raw)
    runs: dict[tuple[datetime, str], dict[tuple[str, str], float]] = defaultdict(dict)
    for item in parsed.measurements:
        assert item.params is not None
        runs[(item.time, item.params["block_size"])][(item.subject, item.metric)] = item.value
    start = datetime(2021, 4, 16, 19, 3, 38, tzinfo=UTC)
    # timespan 2 starts after timespan 1's 15 s warm-up and 30.01 s test
    assert sorted(runs) == [(start, "4096"), (start + timedelta(seconds=45.01), "8192")]
    assert runs[(start, "4096")] == _values(_text(NO_COMMAND))


def test_an_interrupted_test_has_no_results() -> None:
    text = _read_text(NO_COMMAND)
    cut = text[: text.index("actual test time")]
    raw = (
        cut + "The test was interrupted before the measurements began. No results are displayed.\n"
    ).encode()
    failure = _error(TEXT, raw, extra={"started_at": STARTED})
    assert "interrupted" in failure.message

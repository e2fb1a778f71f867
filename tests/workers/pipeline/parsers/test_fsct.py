"""The FSCT step-summary parser: the sample files in tests/fixtures/fsct, the timeline, and its errors.

No FSCT result file is public; the samples follow the layout the parser's
docstring defines (the controller's per-step summary table), so the numbers
asserted here are the ones written in those files.
"""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from workers.pipeline.decode import decode
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.fsct import FsctParser
from workers.pipeline.records import Measurement, Parsed, Step

SAMPLES = Path(__file__).resolve().parents[3] / "fixtures" / "fsct"
REAL = Path(__file__).resolve().parents[5] / "shared" / "fixtures" / "real"
CLEAN = SAMPLES / "fsct_clean_100-1000.txt"
OVERLOAD = SAMPLES / "fsct_overload_top_tabs.txt"
TRUNCATED = SAMPLES / "fsct_truncated.txt"
USERS = list(range(100, 1001, 100))


def _parsed_path(path: Path, **context: Any) -> Parsed:
    decoded = decode(lambda: path.open("rb"))
    return FsctParser().parse(decoded, ParseContext(**context))


def _parsed(data: bytes | str, **context: Any) -> Parsed:
    raw = data.encode() if isinstance(data, str) else data
    decoded = decode(lambda: io.BytesIO(raw))
    return FsctParser().parse(decoded, ParseContext(**context))


def _error(data: bytes | str, **context: Any) -> ParseError:
    with pytest.raises(ParseError) as info:
        _parsed(data, **context)
    assert info.value.parser == "fsct"
    return info.value


def _detect(data: bytes) -> int:
    decoded = decode(lambda: io.BytesIO(data))
    return FsctParser().detect(decoded.head_bytes, decoded.head_text)


def _metric(parsed: Parsed, metric: str) -> dict[datetime, Measurement]:
    found = {}
    for item in parsed.measurements:
        if item.metric == metric:
            assert item.time not in found
            found[item.time] = item
    return found


def _series(parsed: Parsed, metric: str) -> list[float]:
    return [item.value for _, item in sorted(_metric(parsed, metric).items())]


def _aest(day: int, hour: int, minute: int) -> datetime:
    """Times in the samples are written at +10:00 (AEST)."""
    return datetime(2015, 7, day, hour, minute, tzinfo=UTC) - timedelta(hours=10)


# --------------------------------------------------------------------------
# The samples


def test_it_reads_a_clean_run_of_ten_steps() -> None:
    parsed = _parsed_path(CLEAN)
    assert parsed.parser == "fsct"
    assert parsed.tool == "fsct"
    assert [step.users for step in parsed.steps] == USERS
    # Step k starts at 09:02 + 12 min x k (AEST) and lasts 10 minutes.
    assert parsed.steps[0] == Step(100, _aest(1, 9, 2), _aest(1, 9, 12))
    assert parsed.steps[-1] == Step(1000, _aest(1, 10, 50), _aest(1, 11, 0))
    assert _series(parsed, "fsct.throughput_sps") == [
        8.87,
        17.71,
        26.58,
        35.42,
        44.31,
        53.12,
        61.96,
        70.84,
        79.66,
        88.49,
    ]
    assert _series(parsed, "fsct.overload_pct") == [0.0] * 10
    assert _series(parsed, "fsct.overloaded") == [0.0] * 10
    assert _series(parsed, "fsct.errors") == [0.0] * 10
    assert _series(parsed, "fsct.errors_pct") == [0.0] * 10
    throughput = _metric(parsed, "fsct.throughput_sps")
    first = throughput[_aest(1, 9, 2)]
    assert (first.unit, first.subject, first.repetition, first.line) == ("scenarios/s", "", 1, 13)
    assert all(item.params is None and item.scenario is None for item in parsed.measurements)
    assert parsed.run_attributes == {
        "fsct_version": "1.2",
        "server": "FILE3",
        "workload": "HomeFolders",
        "clients": "CLIENT1,CLIENT2,CLIENT3,CLIENT4",
        "volumes": "E:",
        "min_users": "100",
        "max_users": "1000",
        "step": "100",
        "duration": "600 s",
    }


def test_it_reads_the_response_time_of_each_scenario_at_each_step() -> None:
    parsed = _parsed_path(CLEAN)
    responses = [item for item in parsed.measurements if item.metric == "fsct.response_ms"]
    assert len(responses) == 40
    assert {item.subject for item in responses} == {
        "ExplorerUpload",
        "ExplorerDownload",
        "WordOpenSave",
        "DirectoryBrowse",
    }
    at = {(item.time, item.subject): item for item in responses}
    assert at[_aest(1, 9, 2), "ExplorerUpload"].value == 412.0
    assert at[_aest(1, 9, 14), "ExplorerUpload"].value == 428.5
    assert at[_aest(1, 10, 50), "WordOpenSave"].value == 890.8
    assert at[_aest(1, 10, 50), "DirectoryBrowse"].value == 55.8
    assert at[_aest(1, 10, 50), "DirectoryBrowse"].unit == "ms"
    assert at[_aest(1, 10, 50), "DirectoryBrowse"].line == 65
    # Each response time sits inside its own step's window.
    for item in responses:
        step = next(s for s in parsed.steps if s.started_at == item.time)
        assert step.started_at <= item.time < step.ended_at


def test_it_reads_a_tab_separated_run_that_overloads_at_the_top_steps() -> None:
    parsed = _parsed_path(OVERLOAD)
    assert [step.users for step in parsed.steps] == USERS
    # Started + Duration [ms] 600000: each step lasts ten minutes.
    assert parsed.steps[8] == Step(900, _aest(2, 14, 38), _aest(2, 14, 48))
    assert _series(parsed, "fsct.overload_pct") == [0, 0, 0, 0, 0, 0, 0, 0, 2.5, 14.8]
    assert _series(parsed, "fsct.overloaded") == [0, 0, 0, 0, 0, 0, 0, 0, 1, 1]
    assert _series(parsed, "fsct.errors") == [0, 0, 0, 0, 0, 0, 0, 1, 3, 41]
    assert _series(parsed, "fsct.throughput_sps")[-3:] == [68.93, 74.12, 75.06]
    assert _metric(parsed, "fsct.errors_pct") == {}
    responses = {
        (item.time, item.subject): item.value
        for item in parsed.measurements
        if item.metric == "fsct.response_ms"
    }
    assert len(responses) == 30
    # Scenario names with spaces, allowed by tab-separated columns.
    assert responses[_aest(2, 14, 50), "Word open and save"] == 1947.0
    assert responses[_aest(2, 13, 2), "Explorer upload"] == 420.0
    assert parsed.run_attributes == {"fsct_version": "1.2", "server": "FILE3", "workload": "HomeFolders"}


def test_it_keeps_the_complete_steps_of_a_truncated_file_and_says_so() -> None:
    parsed = _parsed_path(TRUNCATED)
    assert [step.users for step in parsed.steps] == [100, 200, 300, 400, 500, 600]
    assert _series(parsed, "fsct.throughput_sps") == [8.87, 17.71, 26.58, 35.42, 44.31, 53.12]
    assert parsed.run_attributes["truncated"] == "the file ends inside line 19; that row was left out"
    assert not [item for item in parsed.measurements if item.metric == "fsct.response_ms"]


def test_it_reads_the_samples_whatever_their_encoding() -> None:
    raw = CLEAN.read_bytes()
    utf16 = b"\xff\xfe" + raw.decode("ascii").encode("utf-16-le")
    parsed = _parsed(utf16)
    assert _series(parsed, "fsct.throughput_sps")[0] == 8.87
    assert len(parsed.steps) == 10


# --------------------------------------------------------------------------
# Layout variations

HEADER_ONLY_TIMES = """*** Results
Users  Overload  Throughput  Started              Ended
100    0         8.5         2015-07-01 09:02:00  2015-07-01 09:12:00
200    1.5%      16.25       2015-07-01 09:14:00  2015-07-01 09:24:00
"""


def test_it_reads_times_without_an_offset_in_the_uploads_timezone() -> None:
    parsed = _parsed(HEADER_ONLY_TIMES, timezone="Australia/Sydney")
    assert parsed.steps == [
        Step(100, _aest(1, 9, 2), _aest(1, 9, 12)),
        Step(200, _aest(1, 9, 14), _aest(1, 9, 24)),
    ]
    assert _series(parsed, "fsct.overload_pct") == [0.0, 1.5]
    assert _series(parsed, "fsct.overloaded") == [0.0, 1.0]
    assert _metric(parsed, "fsct.errors") == {}


def test_it_refuses_times_without_an_offset_when_there_is_no_timezone() -> None:
    error = _error(HEADER_ONLY_TIMES)
    assert "no UTC offset" in error.message
    assert (error.line, error.column) == (3, HEADER_ONLY_TIMES.splitlines()[2].index("2015") + 1)


def test_it_lays_steps_back_to_back_from_started_at_without_a_started_column() -> None:
    text = "Users;Overload [%];Throughput;Duration [s]\n100;0;8,75;600\n200;0;17,5;600\n"
    parsed = _parsed(text, extra={"started_at": "2015-07-01T09:00:00+10:00"})
    assert parsed.steps == [
        Step(100, _aest(1, 9, 0), _aest(1, 9, 10)),
        Step(200, _aest(1, 9, 10), _aest(1, 9, 20)),
    ]
    assert _series(parsed, "fsct.throughput_sps") == [8.75, 17.5]  # decimal commas
    error = _error(text)
    assert "started_at" in error.message
    assert error.line == 1


def test_it_reads_a_comma_separated_table_with_only_the_overloaded_flag() -> None:
    text = (
        "Users,Overloaded,Throughput,Started,Ended\n"
        "100,no,8.5,2015-07-01T09:02:00Z,2015-07-01T09:12:00Z\n"
        "200,yes,9.1,2015-07-01T09:14:00Z,2015-07-01T09:24:00Z\n"
    )
    parsed = _parsed(text)
    assert _series(parsed, "fsct.overloaded") == [0.0, 1.0]
    assert _metric(parsed, "fsct.overload_pct") == {}


def test_it_ignores_text_and_sections_around_the_tables() -> None:
    text = (
        "Some notes typed by the tester\n\n"
        "*** Client summary\nCLIENT1 ready\n\n"
        "*** Results\n"
        "Users  Overload  Throughput  Errors  Duration [ms]  Started\n"
        "100    0%        8.5        N/A     600000         2015-07-01T09:02:00+10:00\n"
        "\nAll steps done.\n"
    )
    parsed = _parsed(text)
    assert parsed.steps == [Step(100, _aest(1, 9, 2), _aest(1, 9, 12))]
    assert _metric(parsed, "fsct.errors") == {}


# --------------------------------------------------------------------------
# Errors

GOOD_HEADER = "Users  Overload  Throughput  Errors  Started                    Ended\n"
GOOD_ROW = "100    0%        8.5         0       2015-07-01T09:02:00+10:00  2015-07-01T09:12:00+10:00\n"


@pytest.mark.parametrize(
    ("text", "words", "line", "column"),
    [
        ("", "no FSCT results table", 1, None),
        ("\x00\x01 garbage \xff", "no FSCT results table", 1, None),
        ("Users  Overload  Throughput\n", "has no rows", 1, None),
        ("Users  Overload  Throughput  Errors\n100  0%  8.5  0\n", "no step times", 1, None),
        (
            GOOD_HEADER + GOOD_ROW.replace("8.5", "fast"),
            "Throughput must be a number",
            2,
            GOOD_ROW.index("8.5") + 1,
        ),
        (
            GOOD_HEADER + GOOD_ROW.replace("0%", "250%"),
            "percentage from 0 to 100",
            2,
            GOOD_ROW.index("0%") + 1,
        ),
        (GOOD_HEADER + GOOD_ROW.replace("100 ", "-10 "), "Users must be a positive whole number", 2, 1),
        (
            GOOD_HEADER + GOOD_ROW.replace("09:02:00+", "99:02:00+"),
            "Started must be an ISO 8601",
            2,
            GOOD_ROW.index("2015") + 1,
        ),
        (GOOD_HEADER + GOOD_ROW.replace("09:12", "08:12"), "ends before it starts", 2, None),
        (GOOD_HEADER + GOOD_ROW + GOOD_ROW.replace("100 ", "200 "), "before the previous one", 3, None),
        (GOOD_HEADER + GOOD_ROW + GOOD_ROW, "users 100 appears twice (first on line 2)", 3, 1),
        (GOOD_HEADER + "100    0%        8.5\n", "row has 3 fields", 2, 21),  # just past the end
        (GOOD_HEADER + GOOD_ROW.rstrip("\n") + "  extra\n", "row has 7 fields", 2, len(GOOD_ROW) + 2),
        (GOOD_HEADER + GOOD_ROW + "\nUsers  Overload  Throughput\n", "a second results table", 4, None),
        (
            GOOD_HEADER + GOOD_ROW + "\nUsers  Scenario  Average [ms]\n200  Upload  12.5\n",
            "users 200 has no step",
            5,
            1,
        ),
        (
            GOOD_HEADER + GOOD_ROW + "\nUsers  Scenario  Average [ms]\n100  Upload  12.5\n100  Upload  13\n",
            "'Upload' appears twice",
            6,
            6,
        ),
        (
            GOOD_HEADER + GOOD_ROW + "\nUsers  Scenario  Average [ms]\n100  Word open  12.5\n",
            "tab-separated",
            5,
            17,  # the fourth field, 12.5
        ),
        ("Users  Overload  Overload  Throughput\n", "appears twice in the header", 1, 18),
    ],
)
def test_it_refuses_bad_files_with_a_located_message(
    text: str, words: str, line: int, column: int | None
) -> None:
    error = _error(text)
    assert words in error.message
    assert error.line == line
    assert error.column == column


def test_it_refuses_a_bad_row_in_the_middle_even_when_the_file_is_cut_later() -> None:
    text = CLEAN.read_text().replace("  44.31", "  44.x1")[:-5]
    error = _error(text)
    assert "Throughput must be a number" in error.message
    assert error.line == 17


def test_it_refuses_a_file_cut_inside_its_header() -> None:
    text = CLEAN.read_bytes()[: CLEAN.read_bytes().index(b"Throughput") + 5]
    error = _error(text)
    assert "no FSCT results table" in error.message


def test_it_refuses_text_that_is_not_valid_in_its_encoding() -> None:
    data = CLEAN.read_bytes().replace(b"FILE3", "FILÉ3".encode()) + b"\n" * 70000 + b"\xff\n"
    with pytest.raises(ParseError) as info:
        _parsed(data)
    assert "not valid utf-8" in info.value.message


# --------------------------------------------------------------------------
# Detection


@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.txt")), ids=lambda p: p.name)
def test_it_detects_the_samples(path: Path) -> None:
    assert _detect(path.read_bytes()) == 90


def test_it_detects_a_results_table_without_a_banner() -> None:
    assert _detect(HEADER_ONLY_TIMES.encode()) == 90
    assert _detect(b"File Server Capacity Tool\n") == 90
    assert _detect(b"Users  Overload  Overload  Throughput\n") == 90  # never raises


@pytest.mark.parametrize("path", sorted(REAL.glob("*/*")), ids=lambda p: p.name)
def test_it_leaves_every_other_real_format_alone(path: Path) -> None:
    assert _detect(path.read_bytes()) == 0


@pytest.mark.parametrize(
    "data",
    [
        b'[{"name": "logon", "started_at": "2015-07-01T10:15:00Z", "duration_ms": 1}]',
        b"name,started_at,duration_ms\nlogon,2015-07-01T10:15:00Z,1\n",
        b'"(PDH-CSV 4.0) (AUS Eastern Standard Time)(-600)","\\\\FS01\\Processor(_Total)\\% Processor Time",'
        b'"FSCT run - File Server Capacity Tool"\n',
        b"Users: 1000\nThroughput: high\n",
    ],
)
def test_it_leaves_timings_perfmon_and_prose_alone(data: bytes) -> None:
    assert _detect(data) == 0


def test_the_fio_parser_leaves_the_fsct_samples_alone() -> None:
    from workers.pipeline.parsers.fio import FioJsonParser

    for path in SAMPLES.glob("*.txt"):
        decoded = decode(partial(io.BytesIO, path.read_bytes()))
        assert FioJsonParser().detect(decoded.head_bytes, decoded.head_text) == 0


# --------------------------------------------------------------------------
# Hostile input (found by fuzzing)


def test_it_finds_the_banner_after_thousands_of_blank_lines() -> None:
    assert _detect(b" \n" * 30_000) == 0
    assert _detect(b" \n" * 30_000 + b"  File Server Capacity Tool (FSCT) 1.2\n") == 90
    parsed = _parsed(" \n" * 30_000 + CLEAN.read_text())
    assert parsed.run_attributes["fsct_version"] == "1.2"


def test_it_keeps_a_preamble_value_with_a_long_run_of_spaces_inside() -> None:
    text = CLEAN.read_text().replace("Server:      FILE3", "Server:      FILE3" + " " * 30_000 + "x  ")
    assert _parsed(text).run_attributes["server"] == "FILE3" + " " * 30_000 + "x"


@pytest.mark.parametrize(
    "header",
    [
        "Users  Overload  Throughput  Started  Ended  " + "x[" * 5_000,  # no "]" after any label
        "Users\tOverload\tThroughput\tStarted\tEnded\tNote [" + " " * 30_000 + "x]",
    ],
)
def test_it_reads_a_header_with_thousands_of_unclosed_or_spaced_units(header: str) -> None:
    assert _detect(header.encode() + b"\n") == 90
    row = GOOD_ROW.rstrip("\n").replace("  ", "\t").replace("\t\t", "\t").split("\t")
    error = _error(header + "\n" + "\t".join(row) + "\n")
    assert "fields but the header" in error.message  # read as a header; the row lacks its extra cells
    assert error.line == 2


@pytest.mark.parametrize(
    ("users", "words"),
    [
        ("\u00b2  ", "Users must be a positive whole number, got '\u00b2'"),  # isdigit() but not int()-able
        ("9" * 400, "Users must be at most 2,147,483,647, got '" + "9" * 37 + "...'"),
    ],
)
def test_it_refuses_a_user_count_it_cannot_store(users: str, words: str) -> None:
    error = _error(GOOD_HEADER + GOOD_ROW.replace("100  ", users, 1))
    assert error.message == words
    assert (error.line, error.column) == (2, 1)


def test_it_refuses_a_duration_too_long_for_a_date() -> None:
    header = "Users  Overload  Throughput  Duration [s]  Started\n"
    row = "100    0%        8.5         99999999999999999999  2015-07-01T09:02:00+10:00\n"
    error = _error(header + row)
    assert (
        error.message == "Duration [s] must be a duration of a plausible length, got '99999999999999999999'"
    )
    assert (error.line, error.column) == (2, row.index("9999") + 1)
    error = _error(header + "100    0%        8.5         7200          9999-12-31T23:00:00+00:00\n")
    assert error.message == "the step ends after the year 9999"
    assert error.line == 2


def test_it_refuses_a_time_with_no_utc_equivalent() -> None:
    error = _error(
        HEADER_ONLY_TIMES.replace("2015-07-01 09:02:00", "0001-01-01 00:00:00"), timezone="Asia/Kolkata"
    )
    assert (
        error.message
        == "the time 0001-01-01T00:00:00 is too close to year 1 or 9999 to express in UTC; expected a real time"
    )
    assert (error.line, error.column) == (3, HEADER_ONLY_TIMES.splitlines()[2].index("2015") + 1)

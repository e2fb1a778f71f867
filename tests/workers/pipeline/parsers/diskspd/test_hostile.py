"""DiskSpd text and XML files damaged at random, and hostile input found by fuzzing."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.workers.pipeline.parsers.diskspd.helpers import (
    AZURE,
    STARTED,
    TEXT,
    TEXT_FILES,
    XML_FILES,
    XMLP,
    _error,
    _parse,
    _read_text,
    _text,
    _values,
)
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.diskspd.text_lines import without_suffix


def _mutations(raw: bytes, seed: int, count: int) -> list[bytes]:
    """Lines dropped, duplicated, swapped or cut short, and bytes flipped, reproducibly."""
    chance = random.Random(seed)
    lines = raw.split(b"\n")
    variants = []
    for _ in range(count):
        mutated = list(lines)
        kind = chance.randrange(5)
        at = chance.randrange(len(mutated))
        if kind == 0:
            del mutated[at]
        elif kind == 1:
            mutated.insert(at, mutated[at])
        elif kind == 2:
            other = chance.randrange(len(mutated))
            mutated[at], mutated[other] = mutated[other], mutated[at]
        elif kind == 3:
            mutated[at] = mutated[at][: chance.randrange(len(mutated[at]) + 1)]
        else:
            data = bytearray(b"\n".join(mutated))
            data[chance.randrange(len(data))] = chance.randrange(256)
            variants.append(bytes(data))
            continue
        variants.append(b"\n".join(mutated))
    return variants


@pytest.mark.parametrize("path", [*TEXT_FILES, *XML_FILES], ids=lambda p: p.name)
def test_mangled_files_parse_or_fail_with_a_parse_error_only(path: Path) -> None:
    parser = XMLP if path.suffix == ".xml" else TEXT
    failures: list[ParseError] = []
    for variant in _mutations(path.read_bytes(), seed=len(path.name), count=60):
        try:
            parsed = _parse(parser, variant, extra={"started_at": STARTED})
        except ParseError as caught:
            failures.append(caught)
            continue
        assert parsed.measurements
    assert failures  # some of the damage is always noticed
    for failure in failures:
        assert (failure.parser, bool(failure.message)) == (parser.name, True)
        assert failure.line is not None


SPACES = " " * 15_000  # just under the 16 KiB line cap


def test_it_reads_a_report_with_a_long_run_of_spaces_inside_a_results_line() -> None:
    text = _read_text(AZURE)
    padded = text.replace(
        "Results for timespan 1:", f"Results for timespan 1{SPACES}x\nResults for timespan 1:", 1
    )
    assert _values(_text(padded.encode())) == _values(_text(AZURE))
    spaced_unit = text.replace(
        "actual test time:       600.00s", f"actual test time:       600.00{SPACES}s", 1
    )
    assert _values(_text(spaced_unit.encode())) == _values(_text(AZURE))


def test_it_refuses_a_test_time_followed_by_a_long_run_of_spaces_and_text() -> None:
    text = _read_text(AZURE).replace(
        "actual test time:       600.00s", f"actual test time:       600.00{SPACES}x", 1
    )
    failure = _error(TEXT, text.encode(), extra={"started_at": STARTED})
    assert failure.message == "results for timespan 1 (line 32) have no 'actual test time'"
    assert failure.line == 32


def test_it_refuses_a_block_size_with_a_long_run_of_spaces_inside() -> None:
    text = _read_text(AZURE).replace("block size: 4096", f"block size: 4096{SPACES}x", 1)
    failure = _error(TEXT, text.encode(), extra={"started_at": STARTED})
    assert failure.message == (
        f"block size {'4096' + SPACES[:36]!r} is not a size DiskSpd writes (e.g. 4096 or 4KiB)"
    )
    assert failure.line == 24


@pytest.mark.parametrize(
    ("heading", "without"),
    [
        ("Total latency distribution:", "Total"),
        (r"E:\x.dat latency distribution :", r"E:\x.dat"),
        (r"E:\x.dat   LATENCY DISTRIBUTION", r"E:\x.dat"),
        ("latency distribution::", "latency distribution::"),  # one colon only
        (rf"E:\x.dat{SPACES}x", rf"E:\x.dat{SPACES}x"),  # no suffix: kept whole
        (rf"E:\x.dat{SPACES}latency distribution{SPACES}:{SPACES}", r"E:\x.dat"),
    ],
)
def test_it_strips_latency_distribution_from_a_table_heading(heading: str, without: str) -> None:
    assert without_suffix(heading, "latency distribution") == without

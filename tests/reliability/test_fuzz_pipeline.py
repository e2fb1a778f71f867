"""Guarantee 4: whatever bytes arrive, the pipeline stores them or says why -- never anything else.

Hypothesis mutates the real fixture files (``shared/fixtures/real`` and
``tests/fixtures``) the way broken files come to us: cut short, bytes flipped,
re-encoded or given a lying BOM, a field blown up past the line limit, lines
reordered, dropped or duplicated, line endings changed, cells replaced by
hostile tokens, JSON trees edited or nested thousands deep. Each mutant goes
through the real pipeline entry (``workers.ingest.run_pipeline``: detect,
decode, parse, validate and the database load) on a real upload row, once with
``kind=auto`` and once forced to the parser under test.

The invariant: the run either stores exactly the rows it reports, or raises
``ParseError`` with a message and leaves no rows behind. Any other exception
is a bug. Every registered parser is fuzzed (new ones join automatically);
HEADROOM_FUZZ_EXAMPLES cases in total are shared among them (3,000 in CI,
100,000 in ``make reliability``).
"""

from __future__ import annotations

import codecs
import io
import itertools
import json
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from tests.ingest import stored_rows
from tests.paths import FIXTURES, REPO
from tests.reliability.services import env_int
from webapp.core.models import Host, Scenario, Upload
from webapp.core.runs import default_run
from workers.ingest import run_pipeline
from workers.pipeline.decode import decode
from workers.pipeline.errors import ParseError
from workers.pipeline.load import delete_rows
from workers.pipeline.registry import all_parsers, detect_parser

pytestmark = [pytest.mark.integration, pytest.mark.django_db]

TOTAL_EXAMPLES = env_int("HEADROOM_FUZZ_EXAMPLES", 3000)
PARSERS = sorted(all_parsers())
SHRINK = env_int("HEADROOM_FUZZ_SHRINK", 0) == 1
EXAMPLES_PER_PARSER = max(50, TOTAL_EXAMPLES // max(1, len(PARSERS)))
SEED_BYTES = 24 * 1024  # text seeds are cut to whole lines below this, to keep cases fast
BINARY_SEED_BYTES = 160 * 1024
MAX_LINE_BYTES = 64 * 1024
MAX_COLUMNS = 2000
CASE_SECONDS = 30.0  # a guard against runaway inputs, not a speed target: 10 s flaked under CI load
ENCODINGS = (
    "utf-8",
    "utf-8-sig",
    "utf-16",
    "utf-16-le",
    "utf-16-be",
    "utf-32",
    "cp1252",
    "cp1251",
    "cp850",
    "cp932",
    "gbk",
    "latin-1",
)
TOKENS = (
    "",
    " ",
    "NaN",
    "inf",
    "-inf",
    "1e309",
    "-1e-400",
    "9" * 400,
    "0x1F",
    "1,5",
    "\u0663",
    "-0",
    "null",
    "true",
    "[]",
    "{}",
    '"',
    '""',
    "\\",
    "\x00",
    "\u202e",
    "\ufeff",
    "0001-01-01T00:00:00Z",
    "9999-12-31T23:59:59Z",
    "2015-13-45T25:61:61",
    "1970-01-01T00:00:00",
    "12/31/9999 23:59:59.999",
    "02/30/2015 10:00:00.000",
    "\\\\HOST\\Object(Instance)\\Counter",
    "x" * 300,
)


@dataclass(frozen=True)
class Seed:
    name: str
    data: bytes
    parser: str | None  # the parser that detects it, if any
    encoding: str | None  # None for binary formats


def _cut(data: bytes, encoding: str) -> bytes:
    """At most SEED_BYTES of whole lines."""
    if len(data) <= SEED_BYTES:
        return data
    newline = "\n".encode(encoding.removesuffix("-sig"))
    end = data.rfind(newline, 0, SEED_BYTES)
    return data[: end + len(newline)] if end > 0 else data[:SEED_BYTES]


@cache
def seeds() -> tuple[Seed, ...]:
    files = sorted(p for p in FIXTURES.rglob("*") if p.is_file() and p.suffix != ".tsv")
    files += sorted(p for p in (REPO / "tests" / "fixtures").rglob("*") if p.is_file())
    found = [Seed(path.name, *_classify(path.read_bytes())) for path in files]
    found = [seed for seed in found if seed.data]
    return (*found, *_synthetic())


def _classify(data: bytes) -> tuple[bytes, str | None, str | None]:
    opener = lambda: io.BytesIO(data)  # noqa: E731
    decoded = decode(opener)
    try:
        parser = detect_parser(decoded.head_bytes, decoded.head_text)
    except ParseError:
        return _cut(data, decoded.encoding), None, decoded.encoding
    if parser.binary:
        return (data if len(data) <= BINARY_SEED_BYTES else b""), parser.name, None
    return _cut(data, decoded.encoding), parser.name, decoded.encoding


def _synthetic() -> list[Seed]:
    """Seeds for the agent formats, which have no third-party files."""
    rows = [
        {"name": "logon", "started_at": f"2015-06-01T09:00:0{r}Z", "duration_ms": 1500.5 + r, "repetition": r}
        for r in range(1, 6)
    ]
    samples = {
        "host": "FS01",
        "samples": [
            {
                "time": f"2015-06-01T10:00:0{i}Z",
                "counter": "\\\\FS01\\Processor(_Total)\\% Processor Time",
                "value": i,
            }
            for i in range(5)
        ]
        + [
            {
                "time": "2015-06-01T10:00:00Z",
                "object": "Memory",
                "counter_name": "Available MBytes",
                "value": 1,
            }
        ],
    }
    csv = "name,started_at,duration_ms,repetition,scenario\n" + "".join(
        f'copy.{r},2015-06-01T09:00:0{r}+02:00,{100 * r},{r},"{{""av"": ""on""}}"\n' for r in range(1, 6)
    )
    measure = "".join(
        f"\nDays              : 0\nHours             : 0\nMinutes           : 0\nSeconds           : 1\n"
        f"Milliseconds      : {r}\nTicks             : {10_000_000 + r * 10_000}\n"
        f"TotalDays         : 1.15740740740741E-05\nTotalHours        : 0.000277777777777778\n"
        f"TotalMinutes      : 0.0166666666666667\nTotalSeconds      : 1.00{r}\nTotalMilliseconds : 100{r}\n"
        for r in range(1, 4)
    )
    texts = {
        "timings.json": json.dumps(rows, indent=1),
        "timings-batch.json": json.dumps({"scenario": {"av": "on"}, "host": "C1", "timings": rows}),
        "timings.jsonl": "\n".join(json.dumps(row) for row in rows),
        "timings.csv": csv,
        "measure-command.txt": measure,
        "samples.json": json.dumps(samples),
    }
    return [Seed(name, *_classify(text.encode())) for name, text in texts.items()]


# --- Mutations: each takes Hypothesis' draw, the bytes so far and the seed ------


def truncate(draw: Any, data: bytes, seed: Seed) -> bytes:
    return data[: draw(st.integers(0, len(data)))]


def flip_bytes(draw: Any, data: bytes, seed: Seed) -> bytes:
    if not data:
        return data
    mutable = bytearray(data)
    for _ in range(draw(st.integers(1, 8))):
        mutable[draw(st.integers(0, len(data) - 1))] ^= draw(st.integers(1, 255))
    return bytes(mutable)


def insert_bytes(draw: Any, data: bytes, seed: Seed) -> bytes:
    at = draw(st.integers(0, len(data)))
    return data[:at] + draw(st.binary(min_size=1, max_size=64)) + data[at:]


def _text(data: bytes, seed: Seed) -> str | None:
    if seed.encoding is None:
        return None
    return data.decode(seed.encoding, errors="replace")


def swap_encoding(draw: Any, data: bytes, seed: Seed) -> bytes:
    text = _text(data, seed)
    if text is None:
        return data
    target = draw(st.sampled_from(ENCODINGS))
    encoded = text.encode(target, errors="replace")
    if draw(st.booleans()):  # a BOM that lies about what follows
        encoded = draw(st.sampled_from([codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE])) + encoded
    return encoded


def _lines(data: bytes, seed: Seed) -> tuple[list[str], str] | None:
    text = _text(data, seed)
    if text is None:
        return None
    return text.splitlines(keepends=True), seed.encoding or "utf-8"


def huge_field(draw: Any, data: bytes, seed: Seed) -> bytes:
    split = _lines(data, seed)
    if split is None or not split[0]:
        return data
    lines, encoding = split
    index = draw(st.integers(0, len(lines) - 1))
    line = lines[index]
    at = draw(st.integers(0, len(line)))
    size = draw(st.sampled_from([1_000, MAX_LINE_BYTES // 2, MAX_LINE_BYTES + 1, 300_000]))
    filler = draw(st.sampled_from(["9", "x", ",", '"', " ", "\t", "{", "[", "é", "\\"]))
    lines[index] = line[:at] + filler * size + line[at:]
    return "".join(lines).encode(encoding, errors="replace")


def reorder_lines(draw: Any, data: bytes, seed: Seed) -> bytes:
    split = _lines(data, seed)
    if split is None or len(split[0]) < 2:
        return data
    lines, encoding = split
    a = draw(st.integers(0, len(lines) - 1))
    b = draw(st.integers(0, len(lines) - 1))
    how = draw(st.sampled_from(["swap", "duplicate", "drop", "reverse", "shuffle"]))
    if how == "swap":
        lines[a], lines[b] = lines[b], lines[a]
    elif how == "duplicate":
        lines.insert(b, lines[a])
    elif how == "drop":
        del lines[a]
    elif how == "reverse":
        lines.reverse()
    else:
        lines = draw(st.permutations(lines))
    return "".join(lines).encode(encoding, errors="replace")


def line_endings(draw: Any, data: bytes, seed: Seed) -> bytes:
    text = _text(data, seed)
    if text is None:
        return data
    old, new = draw(st.sampled_from([("\r\n", "\n"), ("\n", "\r\n"), ("\n", "\r"), ("\r\n", "\r\r\n")]))
    return text.replace(old, new).encode(seed.encoding or "utf-8", errors="replace")


def replace_cell(draw: Any, data: bytes, seed: Seed) -> bytes:
    text = _text(data, seed)
    if text is None or not text:
        return data
    separators = [i for i, ch in enumerate(text) if ch in ',;\t:"\n=']
    if not separators:
        return data
    start = draw(st.sampled_from(separators)) + 1
    end = start
    while end < len(text) and text[end] not in ',;\t"\r\n':
        end += 1
    token = draw(st.sampled_from(TOKENS))
    return (text[:start] + token + text[end:]).encode(seed.encoding or "utf-8", errors="replace")


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


def edit_json(draw: Any, data: bytes, seed: Seed) -> bytes:
    try:
        tree = json.loads(data)
    except (ValueError, RecursionError):
        return data
    how = draw(st.sampled_from(["replace", "delete", "nest"]))
    if how == "nest":
        depth = draw(st.sampled_from([10, 900, 5000, 100_000]))
        return (b"[" * depth) + data + (b"]" * depth)
    paths = list(_paths(tree))
    path = draw(st.sampled_from(paths))
    if not path:
        return data
    parent = tree
    for key in path[:-1]:
        parent = parent[key]
    if how == "delete":
        del parent[path[-1]]
    else:
        parent[path[-1]] = draw(_json_values)
    return json.dumps(tree).encode()


def _paths(tree: Any, prefix: tuple[Any, ...] = ()) -> Any:
    yield prefix
    if len(prefix) > 6:
        return
    items = tree.items() if isinstance(tree, dict) else enumerate(tree) if isinstance(tree, list) else ()
    for key, value in itertools.islice(items, 30):
        yield from _paths(value, (*prefix, key))


TEXT_MUTATIONS = (
    truncate,
    flip_bytes,
    insert_bytes,
    swap_encoding,
    huge_field,
    reorder_lines,
    line_endings,
    replace_cell,
    edit_json,
)
BINARY_MUTATIONS = (truncate, flip_bytes, insert_bytes)


class Mutant:
    """A seed after some mutations. Not a dataclass: Hypothesis prints those field by field."""

    def __init__(self, seed: Seed, data: bytes, mutations: tuple[str, ...]) -> None:
        self.seed = seed
        self.data = data
        self.mutations = mutations

    def __repr__(self) -> str:  # what a failure report shows: the recipe, not 300 KB of bytes
        return f"Mutant({self.seed.name!r}, {list(self.mutations)}, {len(self.data):,} bytes)"


@st.composite
def mutants(draw: Any, pool: tuple[Seed, ...]) -> Mutant:
    seed = draw(st.sampled_from(pool))
    data = seed.data
    applied = []
    for _ in range(draw(st.integers(1, 3))):
        mutation = draw(st.sampled_from(TEXT_MUTATIONS if seed.encoding else BINARY_MUTATIONS))
        data = mutation(draw, data, seed)
        applied.append(mutation.__name__)
    return Mutant(seed, data, tuple(applied))


class TooSlow(Exception):
    pass


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Fail a case that runs longer than ``seconds`` (a hang is a bug too, and CI must end)."""

    def expired(signum: int, frame: Any) -> None:
        raise TooSlow(f"the pipeline took longer than {seconds:.0f} s on this input")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


fuzz_settings = hypothesis_settings(
    max_examples=EXAMPLES_PER_PARSER,
    deadline=None,  # time_limit bounds a case instead; timings vary too much on a shared machine
    database=None,  # nothing written into the checkout; a failure prints its reproduction blob
    print_blob=True,
    suppress_health_check=list(HealthCheck),
    # Shrinking a slow case can take many minutes; the failure message names the
    # seed and mutations anyway. HEADROOM_FUZZ_SHRINK=1 shrinks, for debugging.
    phases=[Phase.explicit, Phase.reuse, Phase.generate, *([Phase.shrink] if SHRINK else [])],
)


@pytest.mark.parametrize("parser", PARSERS)
def test_no_mutant_of_a_real_file_escapes_the_pipelines_error_handling(parser, campaign, settings):
    settings.MAX_LINE_BYTES = MAX_LINE_BYTES
    settings.MAX_COLUMNS = MAX_COLUMNS
    own = tuple(seed for seed in seeds() if seed.parser == parser)
    pool = own or seeds()
    host = Host.objects.create(project=campaign.project, name="FUZZ01", role="server")
    run = default_run(campaign, Scenario.for_dims(campaign, {"av": "on"}))
    counter = itertools.count()

    @fuzz_settings
    @given(mutant=mutants(pool), forced=st.booleans(), zone=st.sampled_from(["", "UTC", "Asia/Kolkata"]))
    def check(mutant: Mutant, forced: bool, zone: str) -> None:
        upload = Upload.objects.create(
            campaign=campaign,
            run=run,
            scenario=run.scenario,
            host=host,
            sha256=f"{next(counter):064d}",
            size=len(mutant.data),
            storage_key="fuzz",
            filename=mutant.seed.name,
            kind=parser if forced else "auto",
            timezone=zone,
        )
        # As a task sees it: a fresh row with its relations (claim() loads it so).
        upload = Upload.objects.select_related("campaign__project", "host", "run", "scenario").get(
            pk=upload.pk
        )
        error: ParseError | None = None
        try:
            with time_limit(CASE_SECONDS):
                result = run_pipeline(upload, opener=lambda: io.BytesIO(mutant.data))
        except ParseError as exc:
            error = exc
        if error is not None:
            assert error.message.strip(), f"{mutant}: a ParseError without a message"
            assert stored_rows(upload.pk) == 0, f"{mutant}: a failed parse left rows"
        else:
            assert stored_rows(upload.pk) == result.rows, f"{mutant}"
            delete_rows(upload.pk)

    check()

"""DiskSpd text report (``-Rtext``, the default output) -> measurements.

The layouts, the metrics and the choices are described in
:mod:`workers.pipeline.parsers.diskspd`. This module reads the report one
line at a time (a file of many appended runs is never held whole), keeping
only the running totals of the run being read.

Fidelity -- what is stored as printed and what is derived:

* As printed: byte and I/O counts, ``I/O per s`` and ``MiB/s`` (the older
  ``MB/s`` column is the same binary unit) of every ``total:`` row and of a
  target served by one thread, ``AvgLat``, ``LatStdDev``, ``IopsStdDev``,
  every latency percentile, and the CPU ``avg.`` row. ``MiB/s`` is stored in
  decimal MB/s, an exact conversion (x 2^20 / 10^6).
* Derived: rates of a target served by several threads (its summed counts
  over the measured time), its mean latency (the threads' means weighted by
  I/Os), and the CPU average when the report has no ``avg.`` row (the mean
  of the per-CPU rows). The measured time is the one DiskSpd divided every
  count by: the middle of the interval that every printed rate and ``actual
  test time`` allow (each to half a unit of its last digit), so a derived
  rate reproduces every printed one (``_measured_seconds``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import ClassVar, TextIO

from workers.pipeline.decode import Decoded, Opener, decode
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.diskspd_common import (
    DIRECTIONS,
    MIB,
    Flow,
    RunResult,
    SpanSpec,
    Subject,
    TargetSpec,
    build_parsed,
    check_seconds,
    clean_path,
    error,
    later,
    located_decode_error,
    parse_diskspd_time,
    parse_size,
    run_params,
)
from workers.pipeline.records import Parsed
from workers.pipeline.registry import ParseContext, register

PARSER = "diskspd_text"

_COMMAND = re.compile(r"^\s*Command Line:\s?(.*)$")
# No "\s*:?\s*$" (or ".+?\s*$") tails: two ways to split a run of spaces make a regex
# quadratic in its length, so values are stripped first and the pattern ends at one place.
_RESULTS = re.compile(r"^\s*Results for timespan\s+(\d{1,9})(?:\s*:)?$", re.IGNORECASE)  # on stripped text
_RULE = re.compile(r"^\s*-{3,}\s*$")
_DASHES = re.compile(r"^\s*-+\s*$")  # the rest of a dashed line a console wrapped
_STARS = re.compile(r"^\s*\*{3,}\s*$")
_THREAD_ROW = re.compile(r"^\s*\d+\s*\|")
_TOTAL_ROW = re.compile(r"^\s*total:(.*)$")
_CPU_HEADER = re.compile(r"\bCPU\s*\|\s*Usage\s*\|", re.IGNORECASE)
_PERCENTILE_ROW = re.compile(r"^\s*(min|max|\d+(?:st|nd|rd|th)|\d+-nines)\s*\|(.*)$", re.IGNORECASE)
_WHOLE = re.compile(r"^[0-9]{1,20}$")
_DECIMAL = re.compile(r"^\s*-?\d+(?:\.\d+)?\s*$")  # what printf("%.2f") writes: no exponent, no "_"
_SECTIONS = {"total io": "total", "read io": "read", "write io": "write"}
_SECTION_TITLES = {"total": "Total IO", "read": "Read IO", "write": "Write IO"}
# Cells of a thread row: (column, name in messages, whole number?)
_ROW_FIELDS = (
    ("thread", "thread number", True),
    ("bytes", "bytes", True),
    ("i/os", "I/Os", True),
    ("avglat", "AvgLat", False),
    ("latstddev", "LatStdDev", False),
    ("iopsstddev", "IopsStdDev", False),
    ("mib/s", "MiB/s", False),
    ("mb/s", "MB/s", False),  # older reports: the same binary megabytes, MiB/s
    ("i/o per s", "I/O per s", False),
)

# Input parameters, one pattern per line kind (matched on the stripped line).
_TIMESPAN = re.compile(r"^timespan:\s*(\d{1,9})", re.IGNORECASE)
_SECONDS = re.compile(r"^(duration|warm up time|cool down time):\s*(\d{1,9})\s*s\b", re.IGNORECASE)
_POOL = re.compile(r"^thread pool with\s+(\d{1,9})\s+threads", re.IGNORECASE)
_PATH = re.compile(r"^path:\s*(?:template target\s*)?'(.*)$", re.IGNORECASE)
_OUTSTANDING = re.compile(
    r"^number of outstanding I/O operations(?: per thread)?:\s*(\d{1,9})", re.IGNORECASE
)
_MIX = re.compile(r"read/write ratio:\s*(\d{1,9})\s*/\s*(\d{1,9})", re.IGNORECASE)
_BLOCK = re.compile(r"^block size:\s*(\S.*)$", re.IGNORECASE)  # on stripped text
_MIXED_RANDOM = re.compile(r"^using mixed random/sequential I/O \((\d{1,9})% random\)", re.IGNORECASE)
_THREADS_PER_FILE = re.compile(r"^threads per file:\s*(\d{1,9})", re.IGNORECASE)

# Results block: "actual test time:\t10.00s", "thread count:\t\t4".
_TEST_TIME = re.compile(r"^actual test time:\s*([\d.]+)(?:\s*s)?$", re.IGNORECASE)  # on stripped text
_THREAD_COUNT = re.compile(r"^thread count:\s*(\d{1,9})\s*$", re.IGNORECASE)

# Detection runs on a 64 KiB head: [ \t] rather than \s, which would let ^\s* run across lines.
_DETECT_COMMAND = re.compile(r"^[ \t]*Command Line:.*diskspd", re.IGNORECASE | re.MULTILINE)
_DETECT_INPUT = re.compile(r"^[ \t]*Input parameters:[ \t\r]*$", re.MULTILINE)
_DETECT_TOTAL_IO = re.compile(r"^[ \t]*Total IO[ \t\r]*$", re.MULTILINE)
_DETECT_TIMESPAN = re.compile(r"^[ \t]*timespan:[ \t]*\d+[ \t\r]*$", re.MULTILINE)
_DETECT_RESULTS = re.compile(r"^[ \t]*Results for timespan[ \t]+\d+[ \t]*:", re.MULTILINE | re.IGNORECASE)
_DETECT_TEST_TIME = re.compile(r"^[ \t]*actual test time:", re.MULTILINE | re.IGNORECASE)


@register
class DiskSpdTextParser:
    """DiskSpd's text report, every layout from 2.0.x to 2.2.0, one or several runs per file."""

    name: ClassVar[str] = PARSER
    binary: ClassVar[bool] = False

    def detect(self, head_bytes: bytes, head_text: str) -> int:
        if _DETECT_COMMAND.search(head_text):
            return 90
        has_input = _DETECT_INPUT.search(head_text) is not None
        if has_input and _DETECT_TOTAL_IO.search(head_text):
            return 90
        if _DETECT_RESULTS.search(head_text) and _DETECT_TEST_TIME.search(head_text):
            return 90
        if has_input and _DETECT_TIMESPAN.search(head_text):
            return 80  # a long parameter list pushed the results out of the head
        return 0

    def parse(self, source: Decoded | Opener, context: ParseContext) -> Parsed:
        decoded = source if isinstance(source, Decoded) else decode(source)
        try:
            with decoded.open_text() as stream:
                # No DiskSpd line is anywhere near this long; refusing longer ones early
                # also bounds the regex work per line (found by fuzzing).
                report = _Report(_Lines(stream, min(context.max_line_bytes, MAX_REPORT_LINE)))
                report.read()
        except UnicodeDecodeError as exc:
            raise located_decode_error(exc, decoded, PARSER) from None
        runs = report.finish()
        return build_parsed(PARSER, runs, context, report.attributes())


# --------------------------------------------------------------------------
# Reading lines


MAX_REPORT_LINE = 16_384


class _Lines:
    """Physical lines without their end-of-line, with one line of look-ahead."""

    def __init__(self, stream: TextIO, limit: int) -> None:
        self._stream = stream
        self._limit = limit
        self._ahead: str | None = None
        self.number = 0  # of the last line returned by next()

    def peek(self) -> str | None:
        if self._ahead is None:
            text = self._stream.readline(self._limit + 1)
            if not text:
                return None
            if len(text) > self._limit and not text.endswith(("\n", "\r")):
                raise error(
                    PARSER,
                    f"line is longer than {self._limit:,} characters; this is not a DiskSpd text report",
                    line=self.number + 1,
                )
            self._ahead = text.rstrip("\r\n").lstrip("\ufeff")
        return self._ahead

    def next(self) -> str | None:
        line = self.peek()
        if line is not None:
            self._ahead = None
            self.number += 1
        return line


def _top_level(stripped: str) -> bool:
    """A line that starts a new part of a report (and so ends the current one)."""
    return bool(
        stripped.startswith("Command Line:")
        or stripped in ("Input parameters:", "System information:", "Totals:")
        or _RESULTS.match(stripped)
    )


def _cells(text: str) -> list[str]:
    return [cell.strip() for cell in text.split("|")]


def _number(cell: str, what: str, line: int, column: int | None = None) -> float | None:
    """A decimal cell (``12.5`` or ``12.5%``); ``N/A`` (no sample) is None."""
    if _DECIMAL.match(cell):
        return float(cell)
    text = cell.strip().rstrip("%").strip()
    if text.upper() == "N/A" or text == "":
        return None
    if _DECIMAL.match(text):
        return float(text)
    raise error(PARSER, f"{what} should be a number, got {cell.strip()[:40]!r}", line, column)


def _count(cell: str, what: str, line: int, column: int | None = None) -> int:
    text = cell.strip()
    if not _WHOLE.match(text):
        raise error(PARSER, f"{what} should be a whole number, got {text[:40]!r}", line, column)
    return int(text)


def _without_size(cell: str) -> str:
    """``C:\\x.dat (10GiB)`` -> ``C:\\x.dat``."""
    cell = cell.strip()
    if cell.endswith(")") and (start := cell.rfind("(")) > 0:
        return cell[:start].rstrip()
    return cell


def _without_suffix(text: str, suffix: str) -> str:
    """``text`` without a trailing ``suffix`` (any case, then an optional ``:``) and the spaces before it.

    Plain string work: ``re.sub(r"\\s*suffix\\s*:?\\s*$", ...)`` tries every start in a run of
    spaces and is quadratic in its length.
    """
    body = text.rstrip()
    if body.endswith(":"):
        body = body[:-1].rstrip()
    if body[-len(suffix) :].lower() != suffix:
        return text
    return body[: -len(suffix)].rstrip()


def _column_of(line: str, index: int) -> int:
    """1-based column where the ``index``-th ``|``-separated cell of ``line`` starts."""
    position = 0
    for _ in range(index):
        found = line.find("|", position)
        if found < 0:
            break
        position = found + 1
    while position < len(line) and line[position] == " ":
        position += 1
    return position + 1


# --------------------------------------------------------------------------
# One DiskSpd invocation and one timespan's results


@dataclass
class _Profile:
    line: int
    command: str | None = None
    input_seen: bool = False
    spans: list[SpanSpec] = field(default_factory=list)
    computer: str | None = None
    start: datetime | None = None
    elapsed_s: float = 0.0  # warm-up + test + cool-down of its timespans read so far
    results: int = 0
    last_index: int = 0  # the highest "Results for timespan N" read


@dataclass
class _Table:
    """The per-thread rows of one I/O table summed per target, and its ``total:`` row."""

    total: Flow
    iops: float | None  # the total row's "I/O per s"


@dataclass
class _Run:
    index: int
    line: int
    test_time: float | None = None
    thread_count: int | None = None
    max_thread: int = -1
    interrupted: bool = False
    cpu_rows: list[list[float]] = field(default_factory=list)
    cpu_avg: list[float] | None = None
    cpu_line: int | None = None
    test_time_half: float = 0.005  # half a unit of the last digit "actual test time" printed
    # (count, printed rate, half a unit of its last digit) of every rate printed:
    # I/Os with "I/O per s", MiB (bytes / 2^20) with "MiB/s"
    rates: list[tuple[float, float, float]] = field(default_factory=list)
    tables: dict[str, _Table] = field(default_factory=dict)
    targets: dict[str, Subject] = field(default_factory=dict)
    latency_column: bool = False
    # subject -> direction -> percentile name -> ms
    percentiles: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)


class _Report:
    def __init__(self, lines: _Lines) -> None:
        self.lines = lines
        self.profiles: list[_Profile] = []
        self.runs: list[RunResult] = []
        self.markers = False  # saw anything that only a DiskSpd report has
        self.interrupted_at: int | None = None
        self.empty = True

    # ---- top level

    def read(self) -> None:
        lines = self.lines
        profile: _Profile | None = None
        while (line := lines.peek()) is not None:
            stripped = line.strip()
            lines.next()
            if stripped:
                self.empty = False
            command = _COMMAND.match(line)
            if command:
                self.markers = True
                profile = self._new_profile()
                profile.command = self._command(command.group(1))
            elif stripped == "Input parameters:":
                self.markers = True
                if profile is None or profile.input_seen or profile.results:
                    profile = self._new_profile()
                profile.input_seen = True
                self._input(profile)
            elif stripped == "System information:":
                self.markers = True
                if profile is None or profile.results:
                    profile = self._new_profile()
                self._system(profile)
            elif (results := _RESULTS.match(stripped)) is not None:
                self.markers = True
                index = int(results.group(1))
                if profile is None or index <= profile.last_index:
                    # timespans count up within one invocation: this is another one,
                    # pasted without its command line and parameters
                    profile = self._new_profile()
                profile.last_index = index
                self._results(profile, index)
            # anything else (console prompts, msinfo32 dumps, "Totals:") is free text

    def _new_profile(self) -> _Profile:
        profile = _Profile(line=self.lines.number)
        self.profiles.append(profile)
        return profile

    def _command(self, first: str) -> str:
        """The command line, re-joined when a console wrapped it (DiskSpd always ends it with a blank line)."""
        parts = [first]
        lines = self.lines
        while (ahead := lines.peek()) is not None and ahead.strip() and not _top_level(ahead.strip()):
            parts.append(ahead)
            lines.next()
        return "".join(parts).strip()

    # ---- Input parameters

    def _input(self, profile: _Profile) -> None:
        lines = self.lines
        span: SpanSpec | None = None
        target: TargetSpec | None = None
        while (line := lines.peek()) is not None:
            text = line.strip()
            if _top_level(text):
                return
            lines.next()
            if not text or _RULE.match(text):
                continue
            number = lines.number
            # DiskSpd indents every parameter; an unindented line under an
            # indented one is the rest of it, cut by a console.
            while (
                line[:1] in (" ", "\t")
                and (ahead := lines.peek())
                and ahead[:1] not in (" ", "\t")
                and not _top_level(ahead.strip())
            ):
                line += lines.next() or ""
                text = line.strip()
            if match := _TIMESPAN.match(text):
                span = SpanSpec()
                profile.spans.append(span)
                target = None
                continue
            if span is None:
                span = SpanSpec()
                profile.spans.append(span)
            if match := _SECONDS.match(text):
                value = int(match.group(2))
                kind = match.group(1).lower()
                if kind == "duration":
                    span.duration_s = value
                elif kind == "warm up time":
                    span.warmup_s = value
                else:
                    span.cooldown_s = value
            elif text.lower() == "measuring latency":
                span.measure_latency = True
            elif match := _POOL.match(text):
                span.pool_threads = int(match.group(1))
            elif match := _PATH.match(text):
                target = TargetSpec(path=clean_path(self._quoted(match.group(1))))
                span.targets.append(target)
            elif match := _OUTSTANDING.match(text):
                if target is None:
                    span.pool_outstanding = int(match.group(1))
                else:
                    target.outstanding = int(match.group(1))
            elif target is not None:
                self._target_line(target, text, number)

    def _quoted(self, rest: str) -> str:
        """The rest of a ``path: '...'`` line, joined with the next lines if a console wrapped it."""
        lines = self.lines
        joins = 0
        while not rest.rstrip().endswith("'") and joins < 8:
            ahead = lines.peek()
            if ahead is None or not ahead.strip() or _top_level(ahead.strip()):
                break
            rest += lines.next() or ""
            joins += 1
        rest = rest.rstrip()
        return rest[:-1] if rest.endswith("'") else rest

    def _target_line(self, target: TargetSpec, text: str, number: int) -> None:
        lower = text.lower()
        if lower.startswith("local software cache disabled"):
            target.software_cache = "local_disabled"
        elif lower.startswith("software cache disabled"):
            target.software_cache = "disabled"
        elif lower.startswith("using software cache"):
            target.software_cache = "enabled"
        if "writethrough on" in lower:
            target.write_through = True
        elif "writethrough off" in lower:
            target.write_through = False
        if lower.startswith("performing read test"):
            target.write_pct = 0
        elif lower.startswith("performing write test"):
            target.write_pct = 100
        elif lower.startswith("performing mix test") and (mix := _MIX.search(text)):
            target.write_pct = int(mix.group(2))
        elif match := _BLOCK.match(text):
            size = parse_size(match.group(1))
            if size is None or size <= 0:
                raise error(
                    PARSER,
                    f"block size {match.group(1)[:40]!r} is not a size DiskSpd writes (e.g. 4096 or 4KiB)",
                    number,
                )
            target.block_size = size
        elif lower.startswith("using random i/o"):
            target.random = True
        elif match := _MIXED_RANDOM.match(text):
            target.random = True
            target.random_pct = int(match.group(1))
        elif lower.startswith(("using sequential i/o", "using interlocked sequential i/o")):
            target.random = False
        elif match := _THREADS_PER_FILE.match(text):
            target.threads_per_file = int(match.group(1))

    # ---- System information

    def _system(self, profile: _Profile) -> None:
        lines = self.lines
        while (line := lines.peek()) is not None:
            text = line.strip()
            if _top_level(text):
                return
            lines.next()
            key, colon, value = text.partition(":")
            if not colon:
                continue
            key, value = key.strip().lower(), value.strip()
            if key == "computer name" and value:
                profile.computer = value
            elif key == "start time" and value:
                profile.start = parse_diskspd_time(value)

    # ---- Results for timespan N

    def _results(self, profile: _Profile, index: int) -> None:
        lines = self.lines
        run = _Run(index=index, line=lines.number)
        heading: str | None = None
        while (line := lines.peek()) is not None:
            text = line.strip()
            if _top_level(text):
                break
            lines.next()
            if not text or _STARS.match(text):
                continue
            number = lines.number
            if match := _TEST_TIME.match(text):
                run.test_time = _number(match.group(1), "actual test time", number)
                run.test_time_half = _half_unit(match.group(1))
            elif match := _THREAD_COUNT.match(text):
                run.thread_count = int(match.group(1))
            elif text.lower().startswith("the test was interrupted"):
                run.interrupted = True
            elif _CPU_HEADER.search(text):
                self._cpu(run)
            elif (section := _SECTIONS.get(text.lower())) is not None:
                self._io_table(run, section)
                heading = None
            elif text.startswith("%-ile"):
                self._percentile_table(run, text, heading, number)
                heading = None
            else:
                heading = text
        self._close_run(profile, run)

    def _cpu(self, run: _Run) -> None:
        lines = self.lines
        while (line := lines.peek()) is not None:
            text = line.strip()
            if _DASHES.match(text):
                lines.next()
                continue
            if not text or "|" not in text or _top_level(text):
                return
            lines.next()
            cells = _cells(text)
            shares = [cell for cell in cells if cell.endswith("%")]
            if len(shares) < 4:
                continue
            values = [_number(cell, "CPU percentage", lines.number) for cell in shares[-4:]]
            numbers = [value if value is not None else 0.0 for value in values]
            if any("avg" in cell.lower() for cell in cells[: len(cells) - 4]):
                run.cpu_avg = numbers
                run.cpu_line = lines.number
            else:
                run.cpu_rows.append(numbers)
                run.cpu_line = run.cpu_line or lines.number

    def _truncated(self, what: str, run: _Run) -> ParseError:
        return error(
            PARSER,
            f"results for timespan {run.index} (line {run.line}) end before {what} (file truncated?)",
            line=max(self.lines.number, 1),
        )

    def _io_table(self, run: _Run, section: str) -> None:
        lines = self.lines
        title = _SECTION_TITLES[section]
        header = lines.next()
        while header is not None and not header.strip():
            header = lines.next()
        if header is None:
            raise self._truncated(f"the {title} table", run)
        if not header.strip().lower().startswith("thread") or "|" not in header:
            raise error(
                PARSER,
                f"expected the column header of the {title} table ('thread | bytes | I/Os | ...'), "
                f"got {header.strip()[:60]!r}",
                lines.number,
            )
        joins = 0
        while not header.rstrip().lower().endswith("file") and joins < 3:
            ahead = lines.peek()
            if ahead is None or not ahead.strip() or _RULE.match(ahead):
                break
            header += lines.next() or ""
            joins += 1
        columns = [cell.lower() for cell in _cells(header)]
        for required in ("bytes", "i/os"):
            if required not in columns:
                raise error(PARSER, f"the {title} table header has no {required!r} column", lines.number)
        if "avglat" in columns:
            run.latency_column = True
        rule = lines.next()
        if rule is None:
            raise self._truncated(f"the rows of the {title} table", run)
        if not _RULE.match(rule):
            raise error(PARSER, f"expected a dashed line under the {title} table header", lines.number)
        while (ahead := lines.peek()) is not None and _DASHES.match(ahead):
            lines.next()

        # per-thread rows, up to the closing dashed line
        while True:
            row = lines.next()
            if row is None:
                raise self._truncated(f"the end of the {title} table", run)
            number = lines.number
            if _RULE.match(row):
                break
            if not _THREAD_ROW.match(row):
                raise error(
                    PARSER, f"expected a thread row of the {title} table, got {row.strip()[:60]!r}", number
                )
            row = self._unwrap_row(row, len(columns), needs_file=True)
            self._thread_row(run, section, columns, row, number)
        while (ahead := lines.peek()) is not None and _DASHES.match(ahead):
            lines.next()

        total = lines.next()
        while total is not None and not total.strip():
            total = lines.next()
        if total is None:
            raise self._truncated(f"the 'total:' row of the {title} table", run)
        match = _TOTAL_ROW.match(total)
        if match is None:
            raise error(PARSER, f"expected the 'total:' row of the {title} table", lines.number)
        number = lines.number
        cells = _cells(self._unwrap_row(match.group(1), len(columns) - 2, needs_file=False))
        values = dict(zip((c for c in columns if c not in ("thread", "file")), cells, strict=False))
        if len(cells) < len(columns) - 2:
            raise self._truncated(f"the end of the 'total:' row of the {title} table", run)
        flow = Flow(line=number)
        flow.bytes = _count(values["bytes"], f"{title} total bytes", number)
        flow.ios = _count(values["i/os"], f"{title} total I/Os", number)
        if "avglat" in values:
            flow.latency_avg_ms = _number(values["avglat"], f"{title} total AvgLat", number)
        if "latstddev" in values:
            flow.latency_stddev_ms = _number(values["latstddev"], f"{title} total LatStdDev", number)
        if "iopsstddev" in values:
            flow.iops_stddev = _number(values["iopsstddev"], f"{title} total IopsStdDev", number)
        iops = (
            _number(values["i/o per s"], f"{title} total I/O per s", number)
            if "i/o per s" in values
            else None
        )
        rate_column = "mib/s" if "mib/s" in values else "mb/s"
        mibps = (
            _number(values[rate_column], f"{title} total {rate_column}", number)
            if rate_column in values
            else None
        )
        flow.iops_printed, flow.mibps_printed = iops, mibps
        _note_rates(run, flow.ios, flow.bytes, values)
        run.tables[section] = _Table(total=flow, iops=iops)

    def _unwrap_row(self, row: str, cells: int, needs_file: bool) -> str:
        """A table row re-joined if a console cut it at its width.

        A cut row has too few cells, or all of them with the last one cut:
        a thread row's file cell then lacks its closing ``(size)``; a
        ``total:`` row (a number last, followed by a blank line) is followed
        by a fragment without ``|``. A continuation may itself look like a
        row (``   35686 | 4.64 | ...``), so it is taken whenever the joined
        row does not get more cells than the header has.
        """
        lines = self.lines
        for _ in range(4):
            have = row.count("|") + 1
            ahead = lines.peek()
            if ahead is None or not ahead.strip() or _RULE.match(ahead) or _TOTAL_ROW.match(ahead):
                break
            following = ahead.strip()
            if _top_level(following) or following.lower() in _SECTIONS or following.startswith("%-ile"):
                break
            if have < cells:
                if have + ahead.count("|") > cells:
                    break
            elif have > cells or "|" in ahead or (needs_file and row.rstrip().endswith(")")):
                break
            row += lines.next() or ""
        return row

    def _thread_row(self, run: _Run, section: str, columns: list[str], row: str, number: int) -> None:
        cells = _cells(row)
        if len(cells) != len(columns):
            raise error(
                PARSER,
                f"thread row has {len(cells)} cells but the {_SECTION_TITLES[section]} header has {len(columns)}",
                number,
            )
        values = dict(zip(columns, cells, strict=True))
        found: dict[str, float | None] = {}
        for name, what, whole in _ROW_FIELDS:
            if name not in values:
                continue
            try:
                found[name] = (
                    _count(values[name], what, number) if whole else _number(values[name], what, number)
                )
            except ParseError as failure:
                failure.column = _column_of(row, columns.index(name))  # found only when needed: it is slow
                raise
        run.max_thread = max(run.max_thread, int(found.get("thread") or 0))
        path = clean_path(_without_size(values.get("file", "")))
        subject = run.targets.setdefault(path, Subject())
        mibps = found.get("mib/s")
        getattr(subject, section).add(
            int(found["bytes"] or 0),
            int(found["i/os"] or 0),
            found.get("avglat"),
            found.get("latstddev"),
            found.get("iopsstddev"),
            number,
            iops=found.get("i/o per s"),
            mibps=mibps if mibps is not None else found.get("mb/s"),
        )
        _note_rates(run, int(found["i/os"] or 0), int(found["bytes"] or 0), values)

    def _percentile_table(self, run: _Run, header: str, heading: str | None, number: int) -> None:
        lines = self.lines
        directions = []
        for cell in _cells(header)[1:]:
            word = cell.split("(")[0].strip().lower()
            directions.append(word if word in DIRECTIONS else None)
        subject = self._percentile_subject(run, heading)
        table: dict[str, dict[str, float]] = {}
        while (ahead := lines.peek()) is not None and _DASHES.match(ahead):
            lines.next()
        labels = set()
        while (ahead := lines.peek()) is not None and (match := _PERCENTILE_ROW.match(ahead)):
            lines.next()
            labels.add(match.group(1).strip().lower())
            name = _percentile_label(match.group(1))
            if name is None:
                continue
            for index, (direction, cell) in enumerate(zip(directions, _cells(match.group(2)), strict=False)):
                if direction is None:
                    continue
                try:
                    value = _number(cell, f"{direction} {match.group(1)} latency", lines.number)
                except ParseError as failure:
                    failure.column = _column_of(ahead, index + 1)
                    raise
                if value is not None:
                    table.setdefault(direction, {})[name] = value
        if "max" not in labels:
            where = f"the latency table at line {number}"
            raise self._truncated(f"the 'max' row of {where}" if labels else f"the rows of {where}", run)
        run.percentiles[subject] = table

    @staticmethod
    def _percentile_subject(run: _Run, heading: str | None) -> str:
        """Which target a latency table belongs to: the path line above it, else all targets ("")."""
        if heading is None:
            return ""
        text = heading.strip()
        lower = text.lower()
        if lower.rstrip(":") == "total" or lower.startswith("total latency"):
            return ""
        text = _without_suffix(text, "latency distribution").rstrip(":").strip()
        path = clean_path(text)
        if path in run.targets:
            return path
        for known in run.targets:
            if known and known in path:
                return known
        return ""

    # ---- a run is complete

    def _close_run(self, profile: _Profile, run: _Run) -> None:
        if run.interrupted and not run.tables:
            self.interrupted_at = self.interrupted_at or run.line
            return
        if not run.tables and run.test_time is None:
            raise self._truncated("its results", run)
        for section in ("total", "read", "write"):
            if section not in run.tables:
                raise self._truncated(f"the {_SECTION_TITLES[section]} table", run)
        span = profile.spans[run.index - 1] if 0 < run.index <= len(profile.spans) else None
        if span is None and not profile.input_seen and profile.command:
            span = _command_line_span(profile.command)
        measured = run.latency_column or (span is not None and span.measure_latency)
        if measured and "" not in run.percentiles and any(t.total.ios for t in run.tables.values()):
            raise self._truncated("its latency percentiles", run)
        if run.test_time is None:
            raise error(
                PARSER,
                f"results for timespan {run.index} (line {run.line}) have no 'actual test time'",
                run.line,
            )
        check_seconds(PARSER, run.test_time, f"timespan {run.index} (line {run.line})", run.line)

        total = run.tables["total"]
        seconds = _measured_seconds(run)
        subjects: dict[str, Subject] = {
            "": Subject(read=run.tables["read"].total, write=run.tables["write"].total, total=total.total)
        }
        if len(run.targets) == 1:
            (path,) = run.targets
            all_targets = subjects[""]
            subjects[path] = all_targets.copy()
            if path not in run.percentiles and "" in run.percentiles:
                run.percentiles[path] = run.percentiles[""]
        else:
            subjects.update(run.targets)
        for subject_name, table in run.percentiles.items():
            subject = subjects.get(subject_name)
            if subject is None:
                continue
            for direction, flow in subject.flows():
                flow.percentiles_ms = dict(table.get(direction, {}))

        cpu = run.cpu_avg
        if cpu is None and run.cpu_rows:
            cpu = [sum(column) / len(run.cpu_rows) for column in zip(*run.cpu_rows, strict=True)]
        warmup = (span.warmup_s or 0) if span is not None else 0
        cooldown = (span.cooldown_s or 0) if span is not None else 0
        file_time = None
        if profile.start is not None:
            file_time = later(PARSER, profile.start, profile.elapsed_s, run.line)
        span_s = warmup + run.test_time + cooldown
        profile.elapsed_s += span_s
        profile.results += 1
        threads = run.thread_count or (run.max_thread + 1 if run.max_thread >= 0 else None)
        all_ios = total.total.ios
        derived_block = total.total.bytes // all_ios if all_ios and total.total.bytes % all_ios == 0 else None
        self.runs.append(
            RunResult(
                line=run.line,
                label=f"timespan {run.index} (line {run.line})",
                seconds=seconds,
                span_s=span_s,
                file_time=file_time,
                params=run_params(span, threads, derived_block),
                subjects=subjects,
                cpu=dict(zip(("usage", "user", "kernel", "idle"), cpu, strict=True)) if cpu else {},
                cpu_line=run.cpu_line,
            )
        )

    # ---- the whole file

    def finish(self) -> list[RunResult]:
        if self.runs:
            return self.runs
        if self.empty:
            raise error(PARSER, "the file is empty", line=1)
        if self.interrupted_at is not None:
            raise error(
                PARSER,
                "DiskSpd reports that the test was interrupted before the measurements began; "
                "the file holds no results",
                line=self.interrupted_at,
            )
        if self.markers:
            raise error(PARSER, "no results found (truncated?)", line=max(self.lines.number, 1))
        raise error(
            PARSER,
            "not a DiskSpd text report: found none of 'Command Line:', 'Input parameters:' "
            "or 'Results for timespan'",
            line=1,
        )

    def attributes(self) -> dict[str, str]:
        attributes: dict[str, str] = {}
        commands = {p.command for p in self.profiles if p.command}
        if len(commands) == 1:
            attributes["command_line"] = commands.pop()
        computers = {p.computer for p in self.profiles if p.computer}
        if len(computers) == 1:
            attributes["computer_name"] = computers.pop()
        return attributes


def _half_unit(text: str) -> float:
    """Half a unit of the last digit of a printed decimal: ``30.01`` -> 0.005, ``12`` -> 0.5."""
    _, dot, decimals = text.strip().rstrip("%").strip().partition(".")
    return 0.5 * 10.0 ** -len(decimals) if dot else 0.5


def _note_rates(run: _Run, ios: int, nbytes: int, values: dict[str, str]) -> None:
    """Remember a row's printed rates with their counts: they bound the measured time."""
    for column, count in (("i/o per s", ios), ("mib/s", nbytes / MIB), ("mb/s", nbytes / MIB)):
        cell = values.get(column, "").strip()
        if count > 0 and _DECIMAL.match(cell):
            run.rates.append((count, float(cell), _half_unit(cell)))


def _measured_seconds(run: _Run) -> float:
    """The measured time DiskSpd divided every count by, to more digits than it printed.

    DiskSpd prints ``actual test time`` and every rate (``count / time``) from one
    time, each to 2 decimals. Each printed figure bounds that time; the middle of
    the interval all of them allow reproduces every printed rate when rates not
    printed (a target served by several threads) are derived from it. A report
    whose figures allow no common time (edited by hand) falls back to the total
    I/Os over the total ``I/O per s``, else ``actual test time``.
    """
    assert run.test_time is not None
    low, high = run.test_time - run.test_time_half, run.test_time + run.test_time_half
    for count, rate, half in run.rates:
        low = max(low, count / (rate + half))
        if rate > half:
            high = min(high, count / (rate - half))
    if 0 < low <= high:
        return (low + high) / 2
    total = run.tables["total"]
    if total.iops and total.total.ios and total.iops > run.test_time:
        return total.total.ios / total.iops
    return run.test_time


def _percentile_label(label: str) -> str | None:
    """``min``, ``25th`` -> ``p25``, ``3-nines`` -> ``p99_9``, ``max``."""
    text = label.strip().lower()
    if text in ("min", "max"):
        return text
    if match := re.fullmatch(r"(\d{1,2})(?:st|nd|rd|th)", text):
        return f"p{match.group(1)}"
    if match := re.fullmatch(r"(\d{1,2})-nines", text):
        nines = int(match.group(1))
        if nines < 2:
            return None
        return "p99" + ("_" + "9" * (nines - 2) if nines > 2 else "")
    return None


# --------------------------------------------------------------------------
# The command line, for reports that lost their "Input parameters"

_CACHE_FLAGS = {
    "": ("disabled", None),
    "b": ("enabled", None),
    "h": ("disabled", True),
    "r": ("local_disabled", None),
}


def _command_line_span(command: str) -> SpanSpec | None:
    """What a ``diskspd`` command line asked for, with DiskSpd's defaults for what it leaves out."""
    tokens = re.findall(r'"[^"]*"|\S+', command)
    program = next((i for i, token in enumerate(tokens) if "diskspd" in token.lower()), None)
    if program is None:
        return None
    target = TargetSpec(
        block_size=64 * 1024,
        outstanding=2,
        write_pct=0,
        random=False,
        software_cache="enabled",
        write_through=False,
    )
    span = SpanSpec(duration_s=10, warmup_s=5, cooldown_s=0)
    paths: list[str] = []
    for token in tokens[program + 1 :]:
        if token[:1] not in ("-", "/") or len(token) < 2:
            paths.append(token.strip('"'))
            continue
        flag, value = token[1], token[2:]
        number = int(value) if _WHOLE.match(value) and len(value) <= 9 else None
        if flag == "b" and (size := parse_size(value)):
            target.block_size = size
        elif flag == "o" and number is not None:
            target.outstanding = number
        elif flag == "t" and number is not None:
            target.threads_per_file = number
        elif flag == "F" and number is not None:
            span.pool_threads = number
        elif flag == "O" and number is not None:
            span.pool_outstanding = number
        elif flag == "w" and number is not None:
            target.write_pct = number
        elif flag == "d" and number is not None:
            span.duration_s = number
        elif flag == "W" and number is not None:
            span.warmup_s = number
        elif flag == "C" and number is not None:
            span.cooldown_s = number
        elif flag == "L":
            span.measure_latency = True
        elif flag == "r":
            target.random = True
            if value.startswith("s") and value[1:].isdigit():
                target.random_pct = int(value[1:])
        elif flag == "s":
            target.random = False
        elif flag == "h":
            target.software_cache, target.write_through = "disabled", True
        elif flag == "S":
            letters = value.lower()
            if letters in _CACHE_FLAGS:
                cache, through = _CACHE_FLAGS[letters]
                target.software_cache = cache
                target.write_through = through if through is not None else target.write_through
            else:
                if "u" in letters:
                    target.software_cache = "disabled"
                if "w" in letters:
                    target.write_through = True
    span.targets = [TargetSpec(**{**vars(target), "path": path}) for path in paths or [""]]
    return span

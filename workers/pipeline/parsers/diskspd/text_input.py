"""DiskSpd text report: what was asked -- ``Command Line:``, ``Input parameters``, ``System information``.

A report that lost its ``Input parameters`` falls back to its command line, read with
DiskSpd's defaults for what it leaves out (:func:`command_line_span`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from workers.pipeline.parsers.diskspd.model import SpanSpec, TargetSpec
from workers.pipeline.parsers.diskspd.reading import clean_path, error, parse_size
from workers.pipeline.parsers.diskspd.records import parse_diskspd_time
from workers.pipeline.parsers.diskspd.text_lines import PARSER, RULE, WHOLE, Lines, top_level

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


@dataclass
class Profile:
    line: int
    command: str | None = None
    input_seen: bool = False
    spans: list[SpanSpec] = field(default_factory=list)
    computer: str | None = None
    start: datetime | None = None
    elapsed_s: float = 0.0  # warm-up + test + cool-down of its timespans read so far
    results: int = 0
    last_index: int = 0  # the highest "Results for timespan N" read


def read_command(lines: Lines, first: str) -> str:
    """The command line, re-joined when a console wrapped it (DiskSpd always ends it with a blank line)."""
    parts = [first]
    while (ahead := lines.peek()) is not None and ahead.strip() and not top_level(ahead.strip()):
        parts.append(ahead)
        lines.next()
    return "".join(parts).strip()


# ---- Input parameters


def read_input(lines: Lines, profile: Profile) -> None:
    span: SpanSpec | None = None
    target: TargetSpec | None = None
    while (line := lines.peek()) is not None:
        text = line.strip()
        if top_level(text):
            return
        lines.next()
        if not text or RULE.match(text):
            continue
        number = lines.number
        # DiskSpd indents every parameter; an unindented line under an
        # indented one is the rest of it, cut by a console.
        while (
            line[:1] in (" ", "\t")
            and (ahead := lines.peek())
            and ahead[:1] not in (" ", "\t")
            and not top_level(ahead.strip())
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
            target = TargetSpec(path=clean_path(_quoted(lines, match.group(1))))
            span.targets.append(target)
        elif match := _OUTSTANDING.match(text):
            if target is None:
                span.pool_outstanding = int(match.group(1))
            else:
                target.outstanding = int(match.group(1))
        elif target is not None:
            _target_line(target, text, number)


def _quoted(lines: Lines, rest: str) -> str:
    """The rest of a ``path: '...'`` line, joined with the next lines if a console wrapped it."""
    joins = 0
    while not rest.rstrip().endswith("'") and joins < 8:
        ahead = lines.peek()
        if ahead is None or not ahead.strip() or top_level(ahead.strip()):
            break
        rest += lines.next() or ""
        joins += 1
    rest = rest.rstrip()
    return rest[:-1] if rest.endswith("'") else rest


def _target_line(target: TargetSpec, text: str, number: int) -> None:
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


def read_system(lines: Lines, profile: Profile) -> None:
    while (line := lines.peek()) is not None:
        text = line.strip()
        if top_level(text):
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


# ---- The command line, for reports that lost their "Input parameters"

_CACHE_FLAGS = {
    "": ("disabled", None),
    "b": ("enabled", None),
    "h": ("disabled", True),
    "r": ("local_disabled", None),
}


def command_line_span(command: str) -> SpanSpec | None:
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
        number = int(value) if WHOLE.match(value) and len(value) <= 9 else None
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

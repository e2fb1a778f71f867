"""What the DiskSpd text and XML parsers share: the result model, parameters, times and metrics.

Both parsers (:mod:`diskspd_text`, :mod:`diskspd_xml`) reduce a file to a list
of :class:`RunResult` -- one per DiskSpd *timespan* that produced results (a
file holds several when DiskSpd ran a multi-timespan profile, or when several
invocations were appended to one file) -- and :func:`build_parsed` turns them
into measurements. See :mod:`workers.pipeline.parsers.diskspd` for the metric
names, units and the choices made.

Rates: a :class:`Flow` carrying the rates its report printed
(``iops_printed``, ``mibps_printed``) is stored with those figures (MiB/s
converted exactly to decimal MB/s); only a flow without printed rates (the
XML, a target summed over several threads) gets counts over
``RunResult.seconds``. Each parser's docstring says which figures it
stores as printed and which it derives.
"""

from __future__ import annotations

import codecs
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from workers.pipeline.clock import in_utc
from workers.pipeline.decode import Decoded, decode_error
from workers.pipeline.errors import ParseError
from workers.pipeline.records import Measurement, Parsed
from workers.pipeline.registry import ParseContext

TOOL = "diskspd"
MB = 1_000_000  # MB/s is stored in decimal megabytes per second
MIB = 1 << 20  # DiskSpd's MiB/s (and its older "MB/s") column
EARLIEST = datetime(1990, 1, 1, tzinfo=UTC)
FUTURE_SLACK = timedelta(days=2)
MAX_SUBJECT = 255  # measurement.subject column width
DIRECTIONS = ("read", "write", "total")
# Percentiles kept from the XML's 1..99 series: the ones the text report prints.
TEXT_PERCENTILES = frozenset(("25", "50", "75", "90", "95", "99"))

# Longer than any real run: durations beyond it are a corrupt file, not a test.
MAX_SECONDS = 10 * 365 * 24 * 3600

# On stripped text: "\s*([KMGT]i?B?|B)?\s*$" can split a run of spaces many ways (quadratic).
_SIZE = re.compile(r"^([0-9]{1,15}(?:\.[0-9]{1,9})?)\s*([KMGT]i?B?|B)?$", re.IGNORECASE)
_SIZE_FACTORS = {"": 1, "B": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_DOUBLED_BACKSLASHES = re.compile(r"^(?:[A-Za-z]:\\\\|\\\\\\\\)")


def error(parser: str, message: str, line: int | None = None, column: int | None = None) -> ParseError:
    return ParseError(message, line=line, column=column, parser=parser)


def located_decode_error(exc: UnicodeDecodeError, decoded: Decoded, parser: str) -> ParseError:
    """The decode stage's message, with the line of the byte that does not decode.

    The text stream decodes in chunks, so the line being read when the error
    surfaces is not the bad byte's: the raw bytes are scanned again to find it.
    """
    failure = decode_error(exc, decoded.encoding, parser)
    decoder = codecs.getincrementaldecoder(decoded.encoding)("strict")
    breaks = 0
    with decoded.opener() as raw:
        raw.read(decoded.bom_length)
        while chunk := raw.read(1 << 20):
            try:
                text = decoder.decode(chunk)
            except UnicodeDecodeError as found:
                good = found.object[: found.start].decode(decoded.encoding, errors="replace")
                failure.line = breaks + len(_LINE_BREAK.findall(good)) + 1
                return failure
            breaks += len(_LINE_BREAK.findall(text))
    failure.line = breaks + 1
    return failure


def parse_size(text: str) -> int | None:
    """``4096``, ``4KiB``, ``64K``, ``1.95MiB``, ``8GB`` -> bytes (binary multiples, as DiskSpd means them)."""
    match = _SIZE.match(text.strip())
    if match is None:
        return None
    unit = (match.group(2) or "").upper()[:1]
    return round(float(match.group(1)) * _SIZE_FACTORS[unit])


def clean_path(path: str) -> str:
    """A target path as a subject: doubled backslashes (a JSON-escaped capture) undone.

    ``C:\\\\Users\\\\x.dat`` (a drive letter followed by two backslashes) or a
    UNC path written with four leading backslashes is an escaped copy; every
    run of backslashes is then halved. Anything else is kept as written.
    """
    path = path.strip()
    if _DOUBLED_BACKSLASHES.match(path) and all(len(run) % 2 == 0 for run in re.findall(r"\\+", path)):
        path = re.sub(r"\\\\", r"\\", path)
    if len(path) > MAX_SUBJECT:
        path = "\u2026" + path[-(MAX_SUBJECT - 1) :]
    return path


# --------------------------------------------------------------------------
# What was asked of DiskSpd


@dataclass
class TargetSpec:
    """One target of a timespan as the profile describes it (``None`` = not stated)."""

    path: str = ""
    block_size: int | None = None
    outstanding: int | None = None  # per thread
    write_pct: int | None = None
    random: bool | None = None
    random_pct: int | None = None  # only for mixed random/sequential I/O
    threads_per_file: int | None = None
    software_cache: str | None = None  # enabled | disabled | local_disabled
    write_through: bool | None = None


@dataclass
class SpanSpec:
    """One timespan of a profile: its durations and targets."""

    duration_s: int | None = None
    warmup_s: int | None = None
    cooldown_s: int | None = None
    measure_latency: bool | None = None
    pool_threads: int | None = None  # -F: a fixed pool of threads shared by all targets
    pool_outstanding: int | None = None  # -O: outstanding I/Os per pool thread
    targets: list[TargetSpec] = field(default_factory=list)


def _joined(values: Iterable[str | None]) -> str | None:
    seen: list[str] = []
    for value in values:
        if value is not None and value not in seen:
            seen.append(value)
    return ",".join(seen) if seen else None


def _flag(value: bool | None) -> str | None:
    return None if value is None else ("true" if value else "false")


def run_params(span: SpanSpec | None, threads: int | None, derived_block: int | None) -> dict[str, str]:
    """The run's parameters as strings (values differing between targets are joined with commas)."""
    params: dict[str, str | None] = {}
    targets = span.targets if span is not None else []
    block = _joined(str(t.block_size) if t.block_size is not None else None for t in targets)
    params["block_size"] = block or (str(derived_block) if derived_block else None)
    if threads is None and span is not None:
        if span.pool_threads:
            threads = span.pool_threads
        elif targets and all(t.threads_per_file for t in targets):
            threads = sum(t.threads_per_file or 0 for t in targets)
    params["threads"] = str(threads) if threads else None
    if span is not None:
        if span.pool_threads and span.pool_outstanding:
            params["outstanding_io"] = str(span.pool_outstanding)
        else:
            params["outstanding_io"] = _joined(
                str(t.outstanding) if t.outstanding is not None else None for t in targets
            )
        params["write_pct"] = _joined(str(t.write_pct) if t.write_pct is not None else None for t in targets)
        params["duration_s"] = str(span.duration_s) if span.duration_s is not None else None
        params["warmup_s"] = str(span.warmup_s) if span.warmup_s is not None else None
        params["random"] = _joined(_flag(t.random) for t in targets)
        params["random_pct"] = _joined(
            str(t.random_pct) if t.random_pct is not None else None for t in targets
        )
        params["software_cache"] = _joined(t.software_cache for t in targets)
        params["write_through"] = _joined(_flag(t.write_through) for t in targets)
        params["targets"] = str(len(targets)) if targets else None
        # What was tested: two tests of one file alike but for their disk (an HDD and an SSD)
        # are two executions, never repetitions of one.
        params["target"] = _joined(t.path or None for t in targets)
    return {key: value for key, value in params.items() if value is not None}


# --------------------------------------------------------------------------
# What DiskSpd measured


@dataclass
class Flow:
    """One direction (read, write or total) of one subject."""

    bytes: int = 0
    ios: int = 0
    latency_avg_ms: float | None = None
    latency_stddev_ms: float | None = None
    iops_stddev: float | None = None
    percentiles_ms: dict[str, float] = field(default_factory=dict)  # "p50", "p99_9", "min", "max"
    # Rates as the text report printed them (I/O per s; MiB/s, 2^20 bytes/s): stored as
    # printed when the flow is one printed row, else derived from the counts.
    iops_printed: float | None = None
    mibps_printed: float | None = None
    line: int | None = None
    parts: int = 0
    _latency_weight: int = 0
    _latency_sum: float = 0.0

    def add(
        self,
        nbytes: int,
        ios: int,
        latency_avg: float | None,
        latency_stddev: float | None,
        iops_stddev: float | None,
        line: int | None,
        iops: float | None = None,
        mibps: float | None = None,
    ) -> None:
        """Merge one thread's share. Standard deviations and printed rates only survive a single share."""
        self.bytes += nbytes
        self.ios += ios
        self.parts += 1
        self.line = self.line or line
        if latency_avg is not None and ios > 0:
            self._latency_sum += latency_avg * ios
            self._latency_weight += ios
            self.latency_avg_ms = self._latency_sum / self._latency_weight
        if self.parts == 1:
            self.latency_stddev_ms = latency_stddev if ios > 0 else None
            self.iops_stddev = iops_stddev
            self.iops_printed, self.mibps_printed = iops, mibps
        else:
            self.latency_stddev_ms = None
            self.iops_stddev = None
            self.iops_printed = self.mibps_printed = None

    def copy(self) -> Flow:
        return Flow(
            bytes=self.bytes,
            ios=self.ios,
            latency_avg_ms=self.latency_avg_ms,
            latency_stddev_ms=self.latency_stddev_ms,
            iops_stddev=self.iops_stddev,
            percentiles_ms=dict(self.percentiles_ms),
            iops_printed=self.iops_printed,
            mibps_printed=self.mibps_printed,
            line=self.line,
        )


@dataclass
class Subject:
    read: Flow = field(default_factory=Flow)
    write: Flow = field(default_factory=Flow)
    total: Flow = field(default_factory=Flow)

    def flows(self) -> tuple[tuple[str, Flow], ...]:
        return (("read", self.read), ("write", self.write), ("total", self.total))

    def copy(self) -> Subject:
        return Subject(read=self.read.copy(), write=self.write.copy(), total=self.total.copy())


@dataclass
class RunResult:
    """The results of one timespan."""

    line: int
    label: str  # for messages: "timespan 1 (line 33)"
    seconds: float  # the measured time rates not printed by the tool are derived over
    span_s: float  # warm-up + measured time + cool-down: how long the run took
    file_time: datetime | None  # the run's start as the file records it
    params: dict[str, str]
    subjects: dict[str, Subject]  # "" = all targets together
    cpu: dict[str, float] = field(default_factory=dict)  # usage, user, kernel, idle (average of CPUs)
    cpu_line: int | None = None


def percentile_name(percentile: str) -> str | None:
    """``"0"`` -> ``min``, ``"100"`` -> ``max``, ``"99.9"`` -> ``p99_9``; other XML-only points -> None."""
    text = percentile.strip()
    try:
        number = float(text)
    except ValueError:
        return None
    if number == 0:
        return "min"
    if number == 100:
        return "max"
    if number.is_integer():
        whole = str(int(number))
        return f"p{whole}" if whole in TEXT_PERCENTILES else None
    return "p" + text.rstrip("0").replace(".", "_")


# --------------------------------------------------------------------------
# Times


def later(parser: str, moment: datetime, seconds: float, line: int) -> datetime:
    """``moment`` plus ``seconds`` of runs before it, refusing absurd durations."""
    if not 0 <= seconds <= MAX_SECONDS:
        raise error(
            parser, f"the runs before this one add up to {seconds:g} s, which is implausible", line=line
        )
    try:
        return moment + timedelta(seconds=seconds)
    except OverflowError:
        raise error(
            parser, f"{moment.isoformat()} plus {seconds:g} s is past the year 9999", line=line
        ) from None


def check_seconds(parser: str, seconds: float, label: str, line: int) -> None:
    if not 0 < seconds <= MAX_SECONDS:
        raise error(parser, f"{label}: the measured time, {seconds:g} s, is implausible", line=line)


def _plausible(moment: datetime) -> bool:
    return EARLIEST <= moment <= datetime.now(UTC) + FUTURE_SLACK


def parse_diskspd_time(text: str) -> datetime | None:
    """``2021/04/16 19:03:38 UTC`` (DiskSpd writes UTC) -> aware datetime, else None."""
    text = text.strip()
    if text.upper().endswith("UTC"):
        text = text[:-3].strip()
    for layout in ("%Y/%m/%d %H:%M:%S", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S"):
        try:
            return datetime.strptime(text, layout).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


def _started_at(parser: str, context: ParseContext, line: int) -> datetime | None:
    """The upload's ``started_at``; errors point at the run (``line``) that needed it."""
    text = context.extra.get("started_at", "").strip()
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise error(
            parser,
            f"started_at must be an ISO 8601 timestamp such as 2015-07-01T10:15:00+10:00, got {text!r}",
            line=line,
        ) from None
    if moment.tzinfo is None:
        if not context.timezone:
            raise error(
                parser,
                f"started_at {text!r} has no UTC offset; add one (e.g. Z or +10:00) or upload with a timezone",
                line=line,
            )
        try:
            moment = moment.replace(tzinfo=ZoneInfo(context.timezone))
        except (ZoneInfoNotFoundError, ValueError):
            raise error(parser, f"unknown timezone {context.timezone!r}", line=line) from None
    moment = in_utc(moment, f"started_at {text!r}", parser=parser, line=line)
    if not _plausible(moment):
        raise error(
            parser,
            f"started_at {moment.isoformat()} is implausible (expected between 1990 and now)",
            line=line,
        )
    return moment


def undated(runs: list[RunResult]) -> bool:
    """True when a run of the file carries no plausible time of its own."""
    return any(run.file_time is None or not _plausible(run.file_time) for run in runs)


def run_times(parser: str, runs: list[RunResult], context: ParseContext) -> list[datetime]:
    """Each run's start: the file's own time when it has a plausible one, else ``started_at``.

    ``started_at`` is only read when a run needs it. Runs without a time in
    the file are placed after ``started_at`` back to back: run *k* starts
    when runs 1..k-1 (warm-up, measured time and cool-down) are done.
    """
    fallback: datetime | None = None
    times = []
    offset = 0.0
    for run in runs:
        moment = run.file_time
        if moment is None or not _plausible(moment):
            fallback = fallback or _started_at(parser, context, run.line)
            if fallback is None:
                if moment is None:
                    why = "the report holds no start time (older DiskSpd versions print no 'start time:')"
                else:
                    why = f"the start time it records, {moment.isoformat()}, is implausible"
                raise error(
                    parser,
                    f"{run.label}: {why}; upload the file with started_at "
                    "(ISO 8601, e.g. 2015-07-01T10:15:00+10:00)",
                    line=run.line,
                )
            moment = later(parser, fallback, offset, run.line)
        times.append(moment)
        offset += run.span_s
    return times


# --------------------------------------------------------------------------
# Measurements


def _finite(value: float) -> bool:
    return not (math.isnan(value) or math.isinf(value))


def _flow_metrics(direction: str, flow: Flow, seconds: float) -> list[tuple[str, float, str, int | None]]:
    iops = flow.iops_printed if flow.iops_printed is not None else flow.ios / seconds
    # MiB/s -> MB/s is exact: x * 2^20 / 10^6.
    mbps = flow.mibps_printed * MIB / MB if flow.mibps_printed is not None else flow.bytes / seconds / MB
    metrics: list[tuple[str, float, str, int | None]] = [
        (f"{direction}.iops", iops, "IO/s", flow.line),
        (f"{direction}.mbps", mbps, "MB/s", flow.line),
        (f"{direction}.bytes", float(flow.bytes), "B", flow.line),
        (f"{direction}.ios", float(flow.ios), "IO", flow.line),
    ]
    if flow.iops_stddev is not None:
        metrics.append((f"{direction}.iops_stddev", flow.iops_stddev, "IO/s", flow.line))
    if flow.ios > 0:
        if flow.latency_avg_ms is not None:
            metrics.append((f"{direction}.latency.avg_ms", flow.latency_avg_ms, "ms", flow.line))
        if flow.latency_stddev_ms is not None:
            metrics.append((f"{direction}.latency.stddev_ms", flow.latency_stddev_ms, "ms", flow.line))
    for name, value in flow.percentiles_ms.items():
        metrics.append((f"{direction}.latency.{name}_ms", value, "ms", flow.line))
    return metrics


def build_parsed(
    parser: str, runs: list[RunResult], context: ParseContext, attributes: Mapping[str, str]
) -> Parsed:
    """Measurements for every run, each carrying its run's parameters (``Measurement.params``).

    One set in the file: they are also the run attributes (the run a named upload goes to);
    several (a block-size sweep): each set becomes its own run.
    """
    times = run_times(parser, runs, context)
    keys = [tuple(sorted(run.params.items())) for run in runs]
    several = len(set(keys)) > 1
    seen: dict[tuple[tuple[str, str], ...], int] = {}
    measurements: list[Measurement] = []
    for run, moment, key in zip(runs, times, keys, strict=True):
        seen[key] = seen.get(key, 0) + 1
        repetition = seen[key]
        params = dict(run.params)  # one execution: never merged into another file's run

        rows: list[tuple[str, float, str, int | None, str]] = []
        for subject_name, subject in run.subjects.items():
            for direction, flow in subject.flows():
                rows.extend(
                    (metric, value, unit, line, subject_name)
                    for metric, value, unit, line in _flow_metrics(direction, flow, run.seconds)
                )
        rows.extend((f"cpu.{name}_pct", value, "%", run.cpu_line, "") for name, value in run.cpu.items())
        for metric, value, unit, line, subject_name in rows:
            if not _finite(value):
                raise error(parser, f"{run.label}: {metric} is not a finite number", line or run.line)
            measurements.append(
                Measurement(
                    time=moment,
                    metric=metric,
                    value=value,
                    unit=unit,
                    repetition=repetition,
                    subject=subject_name,
                    line=line or run.line,
                    params=params,
                )
            )
    run_attributes: dict[str, str] = dict(attributes)
    if undated(runs) and context.extra.get("started_at_is_arrival") == "true":
        # Dated by the upload's arrival: views say "time not recorded" rather than show today.
        run_attributes["time_recorded"] = "false"
    if runs and not several:
        run_attributes.update(runs[0].params)
    return Parsed(parser=parser, tool=TOOL, measurements=measurements, run_attributes=run_attributes)

"""DiskSpd runs -> measurements: each run's parameters, its start time, and its metrics.

See :mod:`workers.pipeline.parsers.diskspd` for the metric names, units and the choices made."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta

from workers.pipeline.clock import in_utc
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.common.zones import upload_zone
from workers.pipeline.parsers.diskspd.model import Flow, RunResult, SpanSpec
from workers.pipeline.parsers.diskspd.reading import MB, MIB, error
from workers.pipeline.records import Measurement, Parsed

TOOL = "diskspd"
EARLIEST = datetime(1990, 1, 1, tzinfo=UTC)
FUTURE_SLACK = timedelta(days=2)

# Longer than any real run: durations beyond it are a corrupt file, not a test.
MAX_SECONDS = 10 * 365 * 24 * 3600


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
        moment = moment.replace(tzinfo=upload_zone(context.timezone, parser, line))
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

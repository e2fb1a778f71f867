"""The fio document -> measurements: per job and direction, with the job's options as parameters."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.common.messages import show
from workers.pipeline.parsers.fio.document import (
    _JOBNAME,
    MESSAGE_LINES,
    PARSER,
    error,
    find_document,
    line_of,
)
from workers.pipeline.parsers.fio.times import document_time, finite
from workers.pipeline.records import Measurement, Parsed

DIRECTIONS = ("read", "write", "trim")
PERCENTILES: tuple[tuple[float, str], ...] = (
    (50.0, "p50"),
    (90.0, "p90"),
    (95.0, "p95"),
    (99.0, "p99"),
    (99.9, "p99_9"),
)
# Job options reported as parameters (fio spells some two ways).
OPTION_PARAMS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("rw", ("rw", "readwrite")),
    ("iodepth", ("iodepth",)),
    ("numjobs", ("numjobs",)),
    ("ioengine", ("ioengine",)),
    ("direct", ("direct",)),
    ("size", ("size",)),
)
# On stripped text: "\s*([kmgtp]?)(i?)(b?)\s*$" can split a run of spaces many ways (quadratic).
_SIZE = re.compile(r"^(\d{1,20}(?:\.\d{1,20})?)\s*([kmgtp]?)(i?)(b?)$", re.IGNORECASE)


# --------------------------------------------------------------------------
# The document


def parse_text(text: str, context: ParseContext) -> Parsed:
    document, start, end = find_document(text)
    line = line_of(text, start)
    time = document_time(document, context, line)
    jobs_key = "jobs" if "jobs" in document else "client_stats"
    jobs = document[jobs_key]
    if not isinstance(jobs, list):
        raise error(f'"{jobs_key}" must be a list of job results, got {show(jobs)}', line)
    if not jobs:
        raise error(f'"{jobs_key}" is empty: fio reported no job results', line)
    job_lines = _job_lines(text, start, end, len(jobs))
    global_options = _options(document.get("global options"), "global options", line)

    names = Counter(str(job.get("jobname", "")) for job in jobs if isinstance(job, dict))
    seen: Counter[str] = Counter()
    prepared: list[tuple[dict[str, Any], str, dict[str, str], int]] = []
    for index, job in enumerate(jobs):
        job_line = job_lines[index] if job_lines else line
        if not isinstance(job, dict):
            raise error(f"job {index + 1} must be an object, got {show(job)}", job_line)
        jobname = job.get("jobname")
        if not isinstance(jobname, str):
            raise error(f'job {index + 1} has no "jobname" string', job_line)
        subject = jobname
        if names[jobname] > 1:
            seen[jobname] += 1
            subject = f"{jobname}#{seen[jobname]}"
        options = {**global_options, **_options(job.get("job options"), "job options", job_line)}
        params = _params(options, job, job_line)
        prepared.append((job, subject, params, job_line))

    distinct = {tuple(sorted(params.items())) for _, _, params, _ in prepared}
    shared = len(distinct) == 1
    measurements: list[Measurement] = []
    for job, subject, params, job_line in prepared:
        host = job.get("hostname") if jobs_key == "client_stats" else None
        measurements.extend(
            _job_measurements(
                job,
                subject,
                time,
                job_line,
                params=params,  # one file is one execution: never merged into another's run
                host=host if isinstance(host, str) and host else None,
            )
        )
    if not measurements:
        raise error("fio reported no figures for any job", line)

    attributes: dict[str, Any] = {}
    version = document.get("fio version")
    if isinstance(version, str):
        attributes["fio_version"] = version
    if shared:
        attributes.update(prepared[0][2])
    messages = [row.strip() for row in text[:start].splitlines() if row.strip()]
    if messages:
        attributes["fio_messages"] = "\n".join(messages[:MESSAGE_LINES])[:2000]
    return Parsed(parser=PARSER, tool="fio", measurements=measurements, run_attributes=attributes)


def _job_lines(text: str, start: int, end: int, count: int) -> list[int]:
    """The line of each job's ``"jobname"`` key, when they can be told apart."""
    offsets = [match.start() for match in _JOBNAME.finditer(text, start, end)]
    if len(offsets) != count:
        return []
    lines = []
    line, previous = line_of(text, start), start
    for offset in offsets:
        line += text.count("\n", previous, offset)
        previous = offset
        lines.append(line)
    return lines


# --------------------------------------------------------------------------
# Parameters


def _options(value: Any, label: str, line: int) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise error(f'"{label}" must be an object, got {show(value)}', line)
    return {str(key): str(item) for key, item in value.items() if not isinstance(item, dict | list)}


def _params(options: Mapping[str, str], job: Mapping[str, Any], line: int) -> dict[str, str]:
    params: dict[str, str] = {}
    kb_base = 1000 if options.get("kb_base", "").strip() == "1000" else 1024
    for key in ("bs", "blocksize"):
        if key in options:
            params["block_size"] = block_size(options[key], kb_base, line)
            break
    for name, keys in OPTION_PARAMS:
        for key in keys:
            if key in options and options[key].strip():
                params[name] = options[key].strip()
                break
    job_error = job.get("error", 0)
    if isinstance(job_error, bool) or not isinstance(job_error, int | float) or not finite(job_error):
        raise error(f'"error" must be a number, got {show(job_error)}', line)
    if job_error:
        params["error"] = str(int(job_error))
    return params


def block_size(text: str, kb_base: int, line: int) -> str:
    """fio's size text -> bytes: ``4k`` -> ``4096``; lists and ranges keep their shape."""
    parts = text.split(",")
    if len(parts) > 1:
        sizes = [block_size(part, kb_base, line) if part.strip() else "" for part in parts]
        filled = [size for size in sizes if size]
        if len(set(filled)) == 1:
            return filled[0]
        return ",".join(sizes)
    if "-" in text or ":" in text:
        low, _, high = text.replace(":", "-").partition("-")
        return f"{block_size(low, kb_base, line)}-{block_size(high, kb_base, line)}"
    match = _SIZE.match(text.strip())
    if match is None:
        shown = text if len(text) <= 40 else text[:37] + "..."
        raise error(f"block size {shown!r} is not a fio size such as 4k or 1M", line)
    number, prefix, iec, _ = match.groups()
    power = "kmgtp".find(prefix.lower()) + 1 if prefix else 0
    # fio's default kb_base=1024 reads "4k" as 4096 and "4ki" as 4000 (its
    # compatibility mode); kb_base=1000 reads them the SI/IEC way.
    base = (1000 if iec else 1024) if kb_base == 1024 else (1024 if iec else 1000)
    return str(round(float(number) * base**power))


# --------------------------------------------------------------------------
# Figures


def _number(section: Mapping[str, Any], key: str, where: str, line: int) -> float | None:
    value = section.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not finite(value):
        raise error(f'"{where}.{key}" must be a number, got {show(value)}', line)
    return float(value)


def _job_measurements(
    job: Mapping[str, Any],
    subject: str,
    time: datetime,
    line: int,
    *,
    params: Mapping[str, str] | None,
    host: str | None,
) -> list[Measurement]:
    out: list[Measurement] = []

    def add(metric: str, value: float, unit: str) -> None:
        out.append(
            Measurement(
                time=time,
                metric=metric,
                value=value,
                unit=unit,
                subject=subject,
                host=host,
                line=line,
                params=params,
            )
        )

    for direction in DIRECTIONS:
        section = job.get(direction)
        if section is None:
            continue
        if not isinstance(section, dict):
            raise error(f'"{direction}" of job {subject!r} must be an object, got {show(section)}', line)
        _direction(section, direction, line, add)
    for key, metric in (("usr_cpu", "cpu.usr_pct"), ("sys_cpu", "cpu.sys_pct")):
        value = _number(job, key, subject, line)
        if value is not None:
            add(metric, value, "%")
    return out


def _direction(
    section: Mapping[str, Any], direction: str, line: int, add: Callable[[str, float, str], None]
) -> None:
    io_bytes = _number(section, "io_bytes", direction, line)
    io_kbytes = _number(section, "io_kbytes", direction, line)
    bw_bytes = _number(section, "bw_bytes", direction, line)
    bw_kib = _number(section, "bw", direction, line)
    iops = _number(section, "iops", direction, line)
    total_ios = _number(section, "total_ios", direction, line)
    # fio 2.x has neither io_kbytes nor bw_bytes, and reports io_bytes in KiB.
    legacy = io_kbytes is None and bw_bytes is None
    if io_bytes is not None and legacy:
        io_bytes *= 1024
    if io_bytes is None and io_kbytes is not None:
        io_bytes = io_kbytes * 1024
    if not any(value for value in (io_bytes, total_ios, iops)):
        return
    if bw_bytes is None and bw_kib is not None:
        bw_bytes = bw_kib * 1024
    if iops is not None:
        add(f"{direction}.iops", iops, "IO/s")
    if bw_bytes is not None:
        add(f"{direction}.bw_bytes_per_s", bw_bytes, "B/s")
        add(f"{direction}.mbps", bw_bytes / 1e6, "MB/s")
    for name in ("lat", "clat"):
        stats, scale = _latency(section, name, direction, line)
        if stats is None:
            continue
        mean = _number(stats, "mean", f"{direction}.{name}", line)
        top = _number(stats, "max", f"{direction}.{name}", line)
        if mean is not None and (mean or top):
            add(f"{direction}.{name}.mean_ms", mean * scale, "ms")
        for key, value in _percentiles(stats, f"{direction}.{name}", line):
            add(f"{direction}.{name}.{key}_ms", value * scale, "ms")
    if io_bytes is not None:
        add(f"{direction}.io_bytes", io_bytes, "B")
    runtime = _number(section, "runtime", direction, line)
    if runtime is not None:
        add(f"{direction}.runtime_s", runtime / 1000, "s")


def _latency(
    section: Mapping[str, Any], name: str, direction: str, line: int
) -> tuple[Mapping[str, Any] | None, float]:
    """A latency block and its factor to milliseconds: ``*_ns`` (fio 3.x) or microseconds (2.x)."""
    for key, scale in ((f"{name}_ns", 1e-6), (name, 1e-3)):
        stats = section.get(key)
        if stats is None:
            continue
        if not isinstance(stats, dict):
            raise error(f'"{direction}.{key}" must be an object, got {show(stats)}', line)
        return stats, scale
    return None, 1.0


def _percentiles(stats: Mapping[str, Any], where: str, line: int) -> list[tuple[str, float]]:
    table = stats.get("percentile")
    if table is None:
        return []
    if not isinstance(table, dict):
        raise error(f'"{where}.percentile" must be an object, got {show(table)}', line)
    found: dict[float, float] = {}
    for key in table:
        try:
            point = float(key)
        except ValueError:
            continue
        if point <= 0:
            continue  # fio 2.x pads the table with "0.00" entries
        number = _number(table, key, f"{where}.percentile", line)
        if number is not None:
            found[point] = number
    out = []
    for point, label in PERCENTILES:
        match = next((value for key, value in found.items() if abs(key - point) < 1e-6), None)
        if match is not None:
            out.append((label, match))
    return out

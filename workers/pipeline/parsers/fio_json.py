"""fio results written with ``--output-format=json`` (fio 2.x and 3.x).

What is read
------------
* The first ``{`` that starts a valid JSON object holding ``"fio version"``
  and a ``jobs`` list (or, for ``fio --client``, a ``client_stats`` list),
  found with ``json.JSONDecoder.raw_decode``. Text before it --
  ``fio: pid=..., err=...`` lines, ``terminating on signal``, anything fio
  or a wrapper printed to the same file -- is skipped and kept (its first
  lines) as the run attribute ``fio_messages``. ``--status-interval``
  output holds several objects, each cumulative: the last one is used.
* fio 3.x latencies are in nanoseconds (``clat_ns``, ``lat_ns``); fio 2.x
  ones in microseconds (``clat``, ``lat``). Percentile keys are the text
  fio prints (``"99.900000"``); fio 2.x's padding keys (``"0.00"``) are
  ignored.
* Old versions lack ``bw_bytes`` and ``io_kbytes``: there ``bw`` is KiB/s
  and ``io_bytes`` is KiB despite its name (``bw`` x ``runtime`` equals
  it in the fio 2.1 and 2.17 samples), so both are scaled to bytes.
* An interrupted job (``error`` != 0) keeps its figures; its parameters
  carry ``error=<code>``.

What comes out
--------------
Per job (subject = ``jobname``, suffixed ``#1``, ``#2`` ... when several
jobs share a name, as ``numjobs`` clones without ``group_reporting`` do;
``host`` = ``hostname`` for ``client_stats``) and per direction ``read``,
``write``, ``trim`` that moved data:

``<dir>.iops`` (IO/s), ``<dir>.bw_bytes_per_s`` (B/s), ``<dir>.mbps``
(10^6 B/s), ``<dir>.lat.mean_ms``, ``<dir>.clat.mean_ms``,
``<dir>.clat.p50_ms`` / ``p90`` / ``p95`` / ``p99`` / ``p99_9`` (and the
same ``<dir>.lat.pNN_ms`` when fio ran with ``lat_percentiles``),
``<dir>.io_bytes`` (B), ``<dir>.runtime_s`` (s); and per job
``cpu.usr_pct``, ``cpu.sys_pct`` (%).

Every figure is stamped with the document's ``timestamp`` (epoch seconds,
when fio wrote it); else its ``time`` text (the machine's local time, read
in the upload's timezone); else the upload's ``started_at``. Without any of
them the file is refused rather than stamped with an invented time.

Parameters per job, from its ``job options`` over the ``global options``:
``block_size`` (bytes: ``bs=4k`` -> ``4096``; ``64k,4k`` -> ``65536,4096``;
a range ``4k-16k`` -> ``4096-16384``; fio's ``kb_base`` is honoured),
``rw``, ``iodepth``, ``numjobs``, ``ioengine``, ``direct``, ``size`` and
``error``. Every figure carries its job's set as ``Measurement.params``:
uploaded without a run name, a file is its own execution run (never merged
with another file's, see ``workers.pipeline.load``); into a named run, a
file whose jobs share one set goes to that run with the set as its
attributes, and jobs that differ get a run per set under it.

Fidelity: ``iops``, ``bw_bytes``, ``io_bytes``, latency means and
percentiles and CPU shares are stored as fio wrote them, in fio's unit or an
exact conversion of it: usec (fio 2.x) / 1000 and nsec (3.x) / 10^6 -> ms;
KiB (2.x ``bw``, ``io_bytes``) x 1024 -> B; ``runtime`` msec / 1000 -> s;
``mbps`` is ``bw_bytes`` / 10^6. Nothing is recomputed from other figures.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any, ClassVar, TextIO
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from workers.pipeline.clock import in_utc
from workers.pipeline.decode import Decoded, Opener, decode, decode_error
from workers.pipeline.errors import ParseError
from workers.pipeline.jsontext import long_integer_error
from workers.pipeline.records import Measurement, Parsed
from workers.pipeline.registry import ParseContext, register

PARSER = "fio_json"
# A fio document is read whole (JSON needs it); beyond this it is refused.
MAX_TEXT_CHARS = 256 * 1024 * 1024
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
MESSAGE_LINES = 10
# On stripped text: "\s*([kmgtp]?)(i?)(b?)\s*$" can split a run of spaces many ways (quadratic).
_SIZE = re.compile(r"^(\d{1,20}(?:\.\d{1,20})?)\s*([kmgtp]?)(i?)(b?)$", re.IGNORECASE)
_JOBNAME = re.compile(r'"jobname"\s*:')
_OBJECT_START = re.compile(r'\{[ \t\n\r]*["}]')  # where a JSON object can start
_CTIME = re.compile(r"^\s*[A-Za-z]{3}\s+([A-Za-z]{3})\s+(\d{1,2})\s+(\d{1,2}):(\d{2}):(\d{2})\s+(\d{4})\s*$")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


@register
class FioJsonParser:
    """fio ``--output-format=json`` results, fio 2.x and 3.x."""

    name: ClassVar[str] = PARSER
    binary: ClassVar[bool] = False

    def detect(self, head_bytes: bytes, head_text: str) -> int:
        return 95 if '"fio version"' in head_text and "{" in head_text else 0

    def parse(self, source: Decoded | Opener, context: ParseContext) -> Parsed:
        decoded = source if isinstance(source, Decoded) else decode(source)
        try:
            with decoded.open_text() as stream:
                text = _read_all(stream)
        except UnicodeDecodeError as exc:
            raise decode_error(exc, decoded.encoding, PARSER) from None
        return _parse_text(text, context)


def _error(message: str, line: int | None = None, column: int | None = None) -> ParseError:
    return ParseError(message, line=line, column=column, parser=PARSER)


def _read_all(stream: TextIO) -> str:
    text = stream.read(MAX_TEXT_CHARS + 1)
    if len(text) > MAX_TEXT_CHARS:
        raise _error(
            f"fio JSON file is larger than {MAX_TEXT_CHARS // (1024 * 1024)} MiB of text; "
            "split it into several uploads"
        )
    return text


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


# --------------------------------------------------------------------------
# Finding the document


def _is_fio(value: Any) -> bool:
    return isinstance(value, dict) and "fio version" in value and ("jobs" in value or "client_stats" in value)


def _find_document(text: str) -> tuple[dict[str, Any], int, int]:
    """``(document, start, end)`` of the last fio JSON object in ``text``."""
    if not text.strip():
        raise _error("the file is empty; expected fio --output-format=json output", line=1)
    decoder = json.JSONDecoder()
    found: tuple[dict[str, Any], int, int] | None = None
    first_failure: json.JSONDecodeError | None = None
    other_object: int | None = None
    position = text.find("{")
    while position != -1:
        if found is None and first_failure is not None and not _OBJECT_START.match(text, position):
            # Cannot start an object, and its error would not be reported: skip it without
            # raw_decode, whose error costs a count of the lines before it (a run of
            # thousands of "{" would be quadratic).
            position = text.find("{", position + 1)
            continue
        try:
            value, end = decoder.raw_decode(text, position)
        except json.JSONDecodeError as exc:
            if found is not None:
                raise _json_error(text, exc, "after the complete fio results") from None
            first_failure = first_failure or exc
            position = text.find("{", position + 1)
            continue
        except RecursionError:
            raise _error("invalid JSON: nested too deeply", *_where(text, position)) from None
        except ValueError:  # an integer too long for int()
            raise long_integer_error(text, position, PARSER, "invalid fio JSON") from None
        if _is_fio(value):
            found = (value, position, end)
        elif other_object is None and found is None:
            other_object = position
        position = text.find("{", end)
    if found is not None:
        return found
    if first_failure is not None:
        raise _json_error(text, first_failure, "")
    if other_object is not None:
        raise _error(
            'the JSON object here is not fio output: it has no "fio version" and "jobs" list '
            "(expected fio --output-format=json results)",
            *_where(text, other_object),
        )
    raise _error("no JSON object found; expected fio --output-format=json output", line=1)


def _where(text: str, offset: int) -> tuple[int, int]:
    line_start = text.rfind("\n", 0, offset) + 1
    return _line_of(text, offset), offset - line_start + 1


def _json_error(text: str, exc: json.JSONDecodeError, where: str) -> ParseError:
    truncated = not text[exc.pos :].strip()
    hint = " (the file ends inside the JSON: it looks truncated)" if truncated else ""
    place = f" {where}" if where else ""
    return _error(f"invalid fio JSON{place}: {exc.msg}{hint}", exc.lineno, exc.colno)


# --------------------------------------------------------------------------
# The document


def _parse_text(text: str, context: ParseContext) -> Parsed:
    document, start, end = _find_document(text)
    line = _line_of(text, start)
    time = _document_time(document, context, line)
    jobs_key = "jobs" if "jobs" in document else "client_stats"
    jobs = document[jobs_key]
    if not isinstance(jobs, list):
        raise _error(f'"{jobs_key}" must be a list of job results, got {_show(jobs)}', line)
    if not jobs:
        raise _error(f'"{jobs_key}" is empty: fio reported no job results', line)
    job_lines = _job_lines(text, start, end, len(jobs))
    global_options = _options(document.get("global options"), "global options", line)

    names = Counter(str(job.get("jobname", "")) for job in jobs if isinstance(job, dict))
    seen: Counter[str] = Counter()
    prepared: list[tuple[dict[str, Any], str, dict[str, str], int]] = []
    for index, job in enumerate(jobs):
        job_line = job_lines[index] if job_lines else line
        if not isinstance(job, dict):
            raise _error(f"job {index + 1} must be an object, got {_show(job)}", job_line)
        jobname = job.get("jobname")
        if not isinstance(jobname, str):
            raise _error(f'job {index + 1} has no "jobname" string', job_line)
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
        raise _error("fio reported no figures for any job", line)

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
    line, previous = _line_of(text, start), start
    for offset in offsets:
        line += text.count("\n", previous, offset)
        previous = offset
        lines.append(line)
    return lines


def _show(value: Any) -> str:
    try:
        shown = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


# --------------------------------------------------------------------------
# Time


def _document_time(document: Mapping[str, Any], context: ParseContext, line: int) -> datetime:
    stamp = document.get("timestamp")
    if isinstance(stamp, int | float) and not isinstance(stamp, bool) and _finite(stamp) and stamp > 0:
        try:
            return datetime.fromtimestamp(stamp, UTC)
        except (OverflowError, OSError, ValueError):  # past the year 9999
            raise _error(
                f'"timestamp" {_show(stamp)} is not a time fio can have written (epoch seconds)', line
            ) from None
    zone = _zone(context.timezone)
    text = document.get("time")
    if isinstance(text, str) and zone is not None:
        moment = _ctime(text)
        if moment is not None:
            return _utc(moment, zone, line)
    started = context.extra.get("started_at", "").strip()
    if started:
        try:
            moment = datetime.fromisoformat(started)
        except ValueError:
            raise _error(
                f"started_at must be an ISO 8601 timestamp such as 2015-07-01T10:15:00+10:00, got {started!r}"
            ) from None
        if moment.tzinfo is None and zone is None:
            raise _error(
                f"started_at {started!r} has no UTC offset; add one (e.g. Z or +10:00) "
                "or upload the file with a timezone"
            )
        return _utc(moment, zone, None)
    if isinstance(text, str):
        raise _error(
            f'fio wrote only a local "time" ({text!r}) and no "timestamp"; upload the file with '
            "its machine's timezone, or with started_at",
            line,
        )
    raise _error(
        'this fio output holds no "timestamp" (old fio versions write none); upload it with started_at '
        "(ISO 8601, e.g. 2015-07-01T10:15:00+10:00)",
        line,
    )


def _utc(moment: datetime, zone: ZoneInfo | None, line: int | None) -> datetime:
    """``moment`` in UTC, read in ``zone`` when it has no offset of its own."""
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=zone)
    return in_utc(aware, f"the time {moment.isoformat()}", parser=PARSER, line=line)


def _finite(value: float) -> bool:
    """``math.isfinite`` for JSON numbers, which may be integers beyond any float."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _zone(name: str | None) -> ZoneInfo | None:
    if not name:
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise _error(f"unknown timezone {name!r}; expected an IANA name such as 'Europe/London'") from None


def _ctime(text: str) -> datetime | None:
    """fio's ``time``: C ``ctime()`` text such as ``Tue Aug 25 12:57:13 2020``."""
    match = _CTIME.match(text)
    if match is None or match.group(1).lower() not in _MONTHS:
        return None
    month = _MONTHS.index(match.group(1).lower()) + 1
    day, hour, minute, second, year = (int(match.group(i)) for i in range(2, 7))
    try:
        return datetime(year, month, day, hour, minute, second)
    except ValueError:
        return None


# --------------------------------------------------------------------------
# Parameters


def _options(value: Any, label: str, line: int) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _error(f'"{label}" must be an object, got {_show(value)}', line)
    return {str(key): str(item) for key, item in value.items() if not isinstance(item, dict | list)}


def _params(options: Mapping[str, str], job: Mapping[str, Any], line: int) -> dict[str, str]:
    params: dict[str, str] = {}
    kb_base = 1000 if options.get("kb_base", "").strip() == "1000" else 1024
    for key in ("bs", "blocksize"):
        if key in options:
            params["block_size"] = _block_size(options[key], kb_base, line)
            break
    for name, keys in OPTION_PARAMS:
        for key in keys:
            if key in options and options[key].strip():
                params[name] = options[key].strip()
                break
    error = job.get("error", 0)
    if isinstance(error, bool) or not isinstance(error, int | float) or not _finite(error):
        raise _error(f'"error" must be a number, got {_show(error)}', line)
    if error:
        params["error"] = str(int(error))
    return params


def _block_size(text: str, kb_base: int, line: int) -> str:
    """fio's size text -> bytes: ``4k`` -> ``4096``; lists and ranges keep their shape."""
    parts = text.split(",")
    if len(parts) > 1:
        sizes = [_block_size(part, kb_base, line) if part.strip() else "" for part in parts]
        filled = [size for size in sizes if size]
        if len(set(filled)) == 1:
            return filled[0]
        return ",".join(sizes)
    if "-" in text or ":" in text:
        low, _, high = text.replace(":", "-").partition("-")
        return f"{_block_size(low, kb_base, line)}-{_block_size(high, kb_base, line)}"
    match = _SIZE.match(text.strip())
    if match is None:
        shown = text if len(text) <= 40 else text[:37] + "..."
        raise _error(f"block size {shown!r} is not a fio size such as 4k or 1M", line)
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
    if isinstance(value, bool) or not isinstance(value, int | float) or not _finite(value):
        raise _error(f'"{where}.{key}" must be a number, got {_show(value)}', line)
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
            raise _error(f'"{direction}" of job {subject!r} must be an object, got {_show(section)}', line)
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
            raise _error(f'"{direction}.{key}" must be an object, got {_show(stats)}', line)
        return stats, scale
    return None, 1.0


def _percentiles(stats: Mapping[str, Any], where: str, line: int) -> list[tuple[str, float]]:
    table = stats.get("percentile")
    if table is None:
        return []
    if not isinstance(table, dict):
        raise _error(f'"{where}.percentile" must be an object, got {_show(table)}', line)
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

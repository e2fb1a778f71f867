"""Which result metrics a comparison shows first, and how benchmark executions are named.

Headline figures per kind of result (``Run.tool``):

* DiskSpd -- all targets together (subject ``""``): ``total.iops``,
  ``total.mbps``, ``total.latency.avg_ms``, ``total.latency.p99_ms``;
* fio -- per direction: ``read|write.iops``, ``.mbps``, ``.lat.mean_ms``,
  ``.clat.p99_ms``;
* robocopy -- ``speed.bytes_per_s`` (shown as MB/s) and ``elapsed_s``, the
  copy's wall clock (Ended - Started). Not ``time.total_s``: robocopy's
  "Times: Total" adds up every thread's time with ``/MT``, so a /MT:8 copy of
  9 min 3 s prints 4,859 s; it stays a figure of its own (group "other"),
  named by ``metric_label`` so nobody reads it as the duration;
* timings, logon events, FSCT and anything else -- every metric (each is a
  duration or a figure someone chose to record).

The rest of a benchmark's figures fall into the other ``GROUPS``.
"""

from __future__ import annotations

from collections.abc import Mapping

GROUPS = (
    "headline",
    "latency percentiles",
    "per target or job",
    "bytes and counts",
    "CPU",
    "spread",
    "other",
)
_DISKSPD = {"total.iops", "total.mbps", "total.latency.avg_ms", "total.latency.p99_ms"}
_FIO = {f"{d}.{m}" for d in ("read", "write") for m in ("iops", "mbps", "lat.mean_ms", "clat.p99_ms")}
_ROBOCOPY = {"speed.bytes_per_s", "elapsed_s"}
_BENCHMARKS = {"diskspd": _DISKSPD, "fio": _FIO, "robocopy": _ROBOCOPY}


# How a metric reads where its stored name alone misleads (per tool).
_LABELS = {
    "robocopy": {
        "elapsed_s": "duration (Ended - Started)",
        "time.total_s": "Times: Total, summed over /MT threads",
        "time.copied_s": "Times: Copied, summed over /MT threads",
        "time.failed_s": "Times: FAILED, summed over /MT threads",
        "time.extras_s": "Times: Extras, summed over /MT threads",
    }
}


def metric_label(tool: str, metric: str) -> str:
    """What a reader is shown for ``metric`` of a run made by ``tool``: the name, or what it means."""
    label = _LABELS.get(tool.lower(), {}).get(metric)
    return f"{metric}: {label}" if label else metric


_FIGURE_WORDS = {
    "iops": "IOPS",
    "mbps": "throughput (MB/s)",
    "ios": "I/Os",
    "bytes": "bytes",
    "lat": "latency",
    "latency": "latency",
    "clat": "completion latency",
    "slat": "submission latency",
}
_STAT_WORDS = {"avg": "mean", "mean": "mean", "min": "minimum", "max": "maximum", "stddev": "spread"}
_UNIT_WORDS = {"ms": "ms", "us": "µs", "ns": "ns", "s": "s", "pct": "%"}


def _stat_words(text: str) -> str:
    """``p99_9_ms`` -> ``99.9th percentile (ms)``; ``avg_ms`` -> ``mean (ms)``; ``usage_pct`` -> ``usage (%)``."""
    head, _, unit = text.rpartition("_")
    if unit not in _UNIT_WORDS or not head:
        head, unit = text, ""
    if head.startswith("p") and head[1:].replace("_", "").isdigit():
        words = f"{head[1:].replace('_', '.')}th percentile"
    else:
        words = _STAT_WORDS.get(head, head.replace("_", " "))
    return f"{words} ({_UNIT_WORDS[unit]})" if unit else words


def metric_words(tool: str, metric: str) -> str:
    """``metric`` in plain words for readers of a shared report: ``read.clat.p99_ms`` ->
    ``read completion latency, 99th percentile (ms)``; a name it cannot read keeps its words."""
    label = _LABELS.get(tool.lower(), {}).get(metric)
    if label:
        return label
    parts = metric.split(".")
    words = []
    for index, part in enumerate(parts):
        if part in _FIGURE_WORDS:
            words.append(_FIGURE_WORDS[part])
        elif part.endswith("_stddev") and part.removesuffix("_stddev") in _FIGURE_WORDS:
            words.append(_FIGURE_WORDS[part.removesuffix("_stddev")] + " spread")
        elif part == "cpu":
            words.append("CPU")
        elif index == len(parts) - 1 and index > 0:
            words[-1] += ","
            words.append(_stat_words(part))
        else:
            words.append(part.replace("_", " "))
    return " ".join(words)


def metric_group(tool: str, metric: str, subject: str) -> str:
    """One of ``GROUPS`` for a metric of a run made by ``tool``."""
    headline = _BENCHMARKS.get(tool.lower())
    if headline is None:
        return "headline"
    if metric in headline and (tool.lower() != "diskspd" or subject == ""):
        return "headline"
    name = metric.lower()
    if "stddev" in name:
        return "spread"
    if name.startswith("cpu."):
        return "CPU"
    if subject and tool.lower() == "diskspd":
        return "per target or job"
    if "lat" in name or name.endswith(("_ms", "_us")):
        return "latency percentiles"
    if name.endswith((".bytes", ".ios", "io_bytes", ".count")) or name.split(".")[0] in (
        "dirs",
        "files",
        "bytes",
    ):
        return "bytes and counts"
    return "other"


# Run attributes that make two benchmark executions different tests (compare, block size).
PARAMS = (
    "block_size",
    "outstanding_io",
    "iodepth",
    "write_pct",
    "rw",
    "threads",
    "numjobs",
    "random",
    "random_pct",
)


def _size(text: str) -> str:
    try:
        value = int(text)
    except ValueError:
        return text
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if value >= scale and value % scale == 0:
            return f"{value // scale} {unit}"
    return f"{value} B"


def execution_label(params: Mapping[str, str]) -> str:
    """``{"block_size": "8192", "write_pct": "100", "outstanding_io": "32"}`` -> ``8 KiB · 100 % write · QD 32``."""
    parts = []
    if "block_size" in params:
        parts.append(",".join(_size(p) for p in params["block_size"].split(",")))
    if "write_pct" in params:
        parts.append(f"{params['write_pct']} % write")
    if "rw" in params:
        parts.append(params["rw"])
    if "random" in params:
        parts.append("random" if params["random"] == "true" else "sequential")
    if "random_pct" in params:
        parts.append(f"{params['random_pct']} % random")
    if "target" in params:
        parts.append(params["target"])
    for name, short in (("outstanding_io", "QD"), ("iodepth", "QD")):
        if name in params:
            parts.append(f"{short} {params[name]}")
    for name in ("threads", "numjobs"):
        if name in params:
            parts.append(f"{params[name]} {'threads' if name == 'threads' else 'jobs'}")
    return " · ".join(parts)

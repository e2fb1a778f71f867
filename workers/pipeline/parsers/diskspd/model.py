"""What the DiskSpd text and XML parsers share: what was asked (the specs) and what was measured.

Both parsers (:mod:`.text_parser`, :mod:`.xml_parser`) reduce a file to a list
of :class:`RunResult` -- one per DiskSpd *timespan* that produced results (a
file holds several when DiskSpd ran a multi-timespan profile, or when several
invocations were appended to one file) -- and :func:`.records.build_parsed` turns them
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

from dataclasses import dataclass, field
from datetime import datetime

DIRECTIONS = ("read", "write", "total")
# Percentiles kept from the XML's 1..99 series: the ones the text report prints.
TEXT_PERCENTILES = frozenset(("25", "50", "75", "90", "95", "99"))


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

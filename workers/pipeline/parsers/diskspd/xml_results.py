"""DiskSpd XML: one ``<Results>`` document -> its runs (``<Profile>`` parameters, ``<TimeSpan>`` results)."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from datetime import datetime

from workers.pipeline.parsers.diskspd.model import (
    Flow,
    RunResult,
    SpanSpec,
    Subject,
    TargetSpec,
    percentile_name,
)
from workers.pipeline.parsers.diskspd.reading import clean_path, error
from workers.pipeline.parsers.diskspd.records import check_seconds, later, parse_diskspd_time, run_params

PARSER = "diskspd_xml"

_WHOLE = re.compile(r"^[0-9]{1,20}$")


@dataclass
class Findings:
    """What the documents of one file gave: their runs, and the facts the file's messages need."""

    runs: list[RunResult] = field(default_factory=list)
    lines: dict[int, int] = field(default_factory=dict)  # id(element) -> line where it starts
    interrupted_at: int | None = None
    truncated_at: int | None = None
    computers: set[str] = field(default_factory=set)
    versions: set[str] = field(default_factory=set)


class ResultsReader:
    def __init__(self, found: Findings, root: ET.Element) -> None:
        self.found = found
        self.root = root

    def line(self, element: ET.Element | None) -> int:
        if element is not None and id(element) in self.found.lines:
            return self.found.lines[id(element)]
        return self.found.lines.get(id(self.root), 1)

    def number(self, parent: ET.Element, tag: str, required: bool = False) -> float | None:
        child = parent.find(tag)
        if child is None or child.text is None or not child.text.strip():
            if required:
                raise error(PARSER, f"<{parent.tag}> has no <{tag}>", self.line(parent))
            return None
        try:
            value = float(child.text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise error(
                PARSER, f"<{tag}> should be a number, got {child.text.strip()[:40]!r}", self.line(child)
            )
        return value

    def count(self, parent: ET.Element, tag: str) -> int:
        """A byte or I/O count, read as an integer (a float would round counts past 2^53)."""
        child = parent.find(tag)
        if child is None:
            raise error(PARSER, f"<{parent.tag}> has no <{tag}>", self.line(parent))
        text = (child.text or "").strip()
        if not _WHOLE.match(text):
            raise error(PARSER, f"<{tag}> should be a whole number, got {text[:40]!r}", self.line(child))
        return int(text)

    @staticmethod
    def text(parent: ET.Element | None, path: str) -> str | None:
        if parent is None:
            return None
        found = parent.findtext(path)
        return found.strip() if found and found.strip() else None

    def read(self) -> None:
        root = self.root
        system = root.find("System")
        computer = self.text(system, "ComputerName")
        version = self.text(system, "Tool/Version")
        if computer:
            self.found.computers.add(computer)
        if version:
            self.found.versions.add(version)
        started = parse_diskspd_time(self.text(system, "RunTime") or "")
        profile = root.find("Profile")
        specs = (
            [self.span_spec(element) for element in profile.findall("TimeSpans/TimeSpan")]
            if profile is not None
            else []
        )
        results = root.findall("TimeSpan")
        if not results:
            self.found.truncated_at = self.line(root)
        elapsed = 0.0
        for index, timespan in enumerate(results, start=1):
            spec = specs[index - 1] if index <= len(specs) else None
            if timespan.find("Error") is not None:
                self.found.interrupted_at = self.found.interrupted_at or self.line(timespan)
                continue
            run = self.run(timespan, index, spec, started, elapsed)
            elapsed += run.span_s
            self.found.runs.append(run)

    def span_spec(self, element: ET.Element) -> SpanSpec:
        def whole(parent: ET.Element, tag: str) -> int | None:
            value = self.number(parent, tag)
            return int(value) if value is not None else None

        def flag(parent: ET.Element, tag: str) -> bool:
            return (self.text(parent, tag) or "").lower() == "true"

        span = SpanSpec(
            duration_s=whole(element, "Duration"),
            warmup_s=whole(element, "Warmup"),
            cooldown_s=whole(element, "Cooldown"),
            measure_latency=flag(element, "MeasureLatency"),
            pool_threads=whole(element, "ThreadCount") or None,
            pool_outstanding=whole(element, "RequestCount") or None,
        )
        for target in element.findall("Targets/Target"):
            spec = TargetSpec(
                path=clean_path(self.text(target, "Path") or ""),
                block_size=whole(target, "BlockSize"),
                outstanding=whole(target, "RequestCount"),
                write_pct=whole(target, "WriteRatio"),
                threads_per_file=whole(target, "ThreadsPerFile"),
            )
            if target.find("Random") is not None:
                spec.random = True
                ratio = whole(target, "RandomRatio")
                if ratio is not None and ratio < 100:
                    spec.random_pct = ratio
            elif target.find("StrideSize") is not None:
                spec.random = False
            if flag(target, "DisableAllCache"):
                spec.software_cache, spec.write_through = "disabled", True
            else:
                if flag(target, "DisableOSCache"):
                    spec.software_cache = "disabled"
                elif flag(target, "DisableLocalCache"):
                    spec.software_cache = "local_disabled"
                else:
                    spec.software_cache = "enabled"
                spec.write_through = flag(target, "WriteThrough")
            span.targets.append(spec)
        return span

    def run(
        self,
        timespan: ET.Element,
        index: int,
        spec: SpanSpec | None,
        started: datetime | None,
        elapsed: float,
    ) -> RunResult:
        line = self.line(timespan)
        label = f"timespan {index} (line {line})"
        seconds = self.number(timespan, "TestTimeSeconds", required=True)
        assert seconds is not None
        check_seconds(PARSER, seconds, label, line)
        threads_value = self.number(timespan, "ThreadCount")
        everything, targets = self.thread_results(timespan, label, line)
        self.overall(timespan, everything, line)
        subjects: dict[str, Subject] = {"": everything}
        if len(targets) == 1:
            (path,) = targets
            subjects[path] = everything.copy()
        else:
            subjects.update(targets)
        utilization = timespan.find("CpuUtilization")
        warmup = (spec.warmup_s or 0) if spec is not None else 0
        cooldown = (spec.cooldown_s or 0) if spec is not None else 0
        total = everything.total
        derived_block = total.bytes // total.ios if total.ios and total.bytes % total.ios == 0 else None
        threads = int(threads_value) if threads_value else None
        file_time = later(PARSER, started, elapsed, line) if started is not None else None
        return RunResult(
            line=line,
            label=label,
            seconds=seconds,
            span_s=warmup + seconds + cooldown,
            file_time=file_time,
            params=run_params(spec, threads, derived_block),
            subjects=subjects,
            cpu=self.cpu(utilization) if utilization is not None else {},
            cpu_line=self.line(utilization) if utilization is not None else line,
        )

    def thread_results(
        self, timespan: ET.Element, label: str, line: int
    ) -> tuple[Subject, dict[str, Subject]]:
        """Every thread's share of every target, summed per target and over all targets."""
        everything = Subject()
        targets: dict[str, Subject] = {}
        for thread in timespan.findall("Thread"):
            for target in thread.findall("Target"):
                target_line = self.line(target)
                path = clean_path(self.text(target, "Path") or "")
                read_bytes, read_ios = self.count(target, "ReadBytes"), self.count(target, "ReadCount")
                write_bytes, write_ios = self.count(target, "WriteBytes"), self.count(target, "WriteCount")
                iops = target.find("Iops")
                shares = (
                    ("read", read_bytes, read_ios, "AverageReadLatencyMilliseconds", "ReadLatencyStdev", "ReadIopsStdDev"),
                    ("write", write_bytes, write_ios, "AverageWriteLatencyMilliseconds", "WriteLatencyStdev", "WriteIopsStdDev"),
                    ("total", read_bytes + write_bytes, read_ios + write_ios, "AverageLatencyMilliseconds", "LatencyStdev", "IopsStdDev"),
                )  # fmt: skip
                subject = targets.setdefault(path, Subject())
                for direction, nbytes, ios, average, stddev, iops_stddev in shares:
                    values = (
                        self.number(target, average),
                        self.number(target, stddev),
                        self.number(iops, iops_stddev) if iops is not None else None,
                    )
                    getattr(subject, direction).add(nbytes, ios, *values, target_line)
                    getattr(everything, direction).add(nbytes, ios, *values, target_line)
        if not targets:
            raise error(PARSER, f"{label}: no <Thread><Target> results (file truncated?)", line)
        return everything, targets

    def overall(self, timespan: ET.Element, everything: Subject, line: int) -> None:
        """The all-target latency (mean, stddev, percentiles) and IOPS stddev DiskSpd computed itself."""
        latency = timespan.find("Latency")
        if latency is not None:
            overall = (
                ("read", "AverageReadMilliseconds", "ReadLatencyStdev", "ReadMilliseconds"),
                ("write", "AverageWriteMilliseconds", "WriteLatencyStdev", "WriteMilliseconds"),
                ("total", "AverageTotalMilliseconds", "LatencyStdev", "TotalMilliseconds"),
            )
            buckets = [
                (name, bucket)
                for bucket in latency.findall("Bucket")
                if (name := percentile_name(self.text(bucket, "Percentile") or "")) is not None
            ]
            for direction, average, stddev, tag in overall:
                flow: Flow = getattr(everything, direction)
                mean = self.number(latency, average)
                flow.latency_avg_ms = mean if mean is not None else flow.latency_avg_ms
                flow.latency_stddev_ms = self.number(latency, stddev)
                for name, bucket in buckets:
                    value = self.number(bucket, tag)
                    if value is not None:
                        flow.percentiles_ms[name] = value
        iops = timespan.find("Iops")
        if iops is not None:
            for direction, tag in (
                ("read", "ReadIopsStdDev"),
                ("write", "WriteIopsStdDev"),
                ("total", "IopsStdDev"),
            ):
                getattr(everything, direction).iops_stddev = self.number(iops, tag)
        for _, flow in everything.flows():
            flow.line = line

    def cpu(self, utilization: ET.Element) -> dict[str, float]:
        """DiskSpd's average over all CPUs (or the mean of the per-CPU rows when it is missing)."""
        names = (
            ("usage", "UsagePercent"),
            ("user", "UserPercent"),
            ("kernel", "KernelPercent"),
            ("idle", "IdlePercent"),
        )
        cpu: dict[str, float] = {}
        mean = utilization.find("Average")
        cpus = [mean] if mean is not None else utilization.findall("CPU")
        for name, tag in names:
            shares = [value for element in cpus if (value := self.number(element, tag)) is not None]
            if shares:
                cpu[name] = sum(shares) / len(shares)
        return cpu

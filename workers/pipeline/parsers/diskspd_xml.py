"""DiskSpd XML results (``-Rxml``) -> measurements.

The document, the metrics and the choices are described in
:mod:`workers.pipeline.parsers.diskspd`. The XML is parsed incrementally with
:class:`xml.etree.ElementTree.XMLPullParser`, one physical line at a time (so
every element knows its line), and the per-second IOPS series
(``<Iops><Bucket SampleMillisecond=...>``), which is most of a long run's
file, is dropped as it is read. Several ``<Results>`` documents appended to
one file are read one after the other; text around them (a console prompt)
is ignored. A ``<!DOCTYPE`` or ``<!ENTITY`` declaration is refused before it
reaches the parser: DiskSpd never writes one, and refusing them rules out
entity-expansion attacks without ``defusedxml``.

Fidelity -- what is stored as printed and what is derived: byte and I/O
counts, latency means, standard deviations and percentiles
(``<Latency>``), IOPS standard deviations and the CPU ``<Average>`` are
stored as the XML writes them. The XML prints no rate: IOPS and MB/s are
derived as counts over ``<TestTimeSeconds>`` (2 decimals, so a rate carries
that time's rounding, at most 0.005 s over the run). Per-target figures of a
target served by several threads are sums of its ``<Thread><Target>``
counts, and its mean latency their means weighted by I/Os; the CPU average
is the mean of the ``<CPU>`` rows when ``<Average>`` is missing.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from datetime import datetime
from typing import ClassVar

from workers.pipeline.decode import Decoded, Opener, decode
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.diskspd_common import (
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
    percentile_name,
    run_params,
)
from workers.pipeline.records import Parsed
from workers.pipeline.registry import ParseContext, register

PARSER = "diskspd_xml"

_DOCUMENT_START = re.compile(r"<\?xml|<Results[\s>/]")
_DOCUMENT_END = re.compile(r"</Results\s*>")
_DECLARATION = re.compile(r"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)
_ROOT = re.compile(r"<Results\s*>")
_WHOLE = re.compile(r"^[0-9]{1,20}$")
_POSITION = re.compile(r":\s*line \d+, column \d+\s*$")


@register
class DiskSpdXmlParser:
    """DiskSpd ``-Rxml`` output: per-thread and per-target results, latency percentiles, CPU."""

    name: ClassVar[str] = PARSER
    binary: ClassVar[bool] = False

    def detect(self, head_bytes: bytes, head_text: str) -> int:
        root = _ROOT.search(head_text)
        if root is None:
            return 0
        # Nothing but an XML declaration, comments, whitespace or console text before <Results>.
        before = head_text[: root.start()]
        if re.search(r"<(?!\?xml|!--)", before):
            return 0
        after = head_text[root.end() :]
        if "<System>" in after or "<Profile>" in after:
            return 95
        return 0

    def parse(self, source: Decoded | Opener, context: ParseContext) -> Parsed:
        decoded = source if isinstance(source, Decoded) else decode(source)
        reader = _Reader()
        try:
            with decoded.open_text() as stream:
                number = 0
                while True:
                    text = stream.readline(context.max_line_bytes + 1)
                    if not text:
                        break
                    number += 1
                    if len(text) > context.max_line_bytes and not text.endswith(("\n", "\r")):
                        raise error(
                            PARSER,
                            f"line is longer than {context.max_line_bytes:,} characters; "
                            "this is not DiskSpd XML output",
                            line=number,
                        )
                    reader.feed_line(text, number)
                reader.end(number)
        except UnicodeDecodeError as exc:
            raise located_decode_error(exc, decoded, PARSER) from None
        return build_parsed(PARSER, reader.runs, context, reader.attributes())


# --------------------------------------------------------------------------
# Reading the documents


@dataclass
class _Document:
    line: int  # file line where the document starts
    column: int  # 0-based column of its first character on that line
    parser: ET.XMLPullParser[ET.Element]
    stack: list[ET.Element] = field(default_factory=list)
    root: ET.Element | None = None
    drop: set[int] = field(default_factory=set)  # id()s of IOPS-series buckets to discard


class _Reader:
    def __init__(self) -> None:
        self.document: _Document | None = None
        self.runs: list[RunResult] = []
        self.lines: dict[int, int] = {}  # id(element) -> line where it starts
        self.documents = 0
        self.empty = True
        self.interrupted_at: int | None = None
        self.truncated_at: int | None = None
        self.computers: set[str] = set()
        self.versions: set[str] = set()

    def feed_line(self, text: str, number: int) -> None:
        if text.strip():
            self.empty = False
        column = 0
        rest = text
        while rest:
            if self.document is None:
                start = _DOCUMENT_START.search(rest)
                if start is None:
                    return
                column += start.start()
                rest = rest[start.start() :]
                self.document = _Document(
                    line=number,
                    column=column,
                    parser=ET.XMLPullParser(events=("start", "end")),
                )
                self.documents += 1
            end = _DOCUMENT_END.search(rest)
            chunk = rest if end is None else rest[: end.end()]
            self._feed(chunk, number, column)
            if end is None:
                return
            self._close()
            column += end.end()
            rest = rest[end.end() :]

    def end(self, number: int) -> None:
        if self.document is not None:
            self._close(at_end=True)
        if self.runs:
            return
        if self.empty:
            raise error(PARSER, "the file is empty", line=1)
        if self.interrupted_at is not None:
            raise error(
                PARSER,
                "DiskSpd reports that the test was interrupted before the measurements began; "
                "the file holds no results",
                line=self.interrupted_at,
            )
        if self.documents:
            raise error(PARSER, "no results found (truncated?)", line=self.truncated_at or number)
        raise error(PARSER, "not DiskSpd XML output: no <Results> element found", line=1)

    @staticmethod
    def _refuse_declarations(text: str, number: int, column: int) -> None:
        found = _DECLARATION.search(text)
        if found:
            raise error(
                PARSER,
                f"the XML holds a <!{found.group(1).upper()} declaration, which DiskSpd never writes; "
                "it is refused (entity expansion)",
                line=number,
                column=column + found.start() + 1,
            )

    def _syntax_error(self, exc: ET.ParseError, document: _Document, truncated: bool = False) -> ParseError:
        line, column = exc.position
        message = _POSITION.sub("", str(exc))
        file_line = document.line + line - 1
        file_column = column + 1 + (document.column if line == 1 else 0)
        hint = " (file truncated?)" if truncated or message.startswith("no element found") else ""
        return error(PARSER, f"the XML is not well-formed: {message}{hint}", file_line, file_column)

    def _feed(self, chunk: str, number: int, column: int) -> None:
        document = self.document
        assert document is not None
        self._refuse_declarations(chunk, number, column)
        try:
            document.parser.feed(chunk)
            events = list(document.parser.read_events())
        except ET.ParseError as exc:
            raise self._syntax_error(exc, document) from None
        for item in events:
            if not isinstance(item, tuple) or len(item) != 2 or not isinstance(item[1], ET.Element):
                continue
            event, element = item
            if event == "start":
                parent = document.stack[-1] if document.stack else None
                if parent is None:
                    document.root = element
                    if element.tag != "Results":
                        raise error(
                            PARSER,
                            f"the root element is <{element.tag}>; DiskSpd XML output starts with <Results>",
                            line=number,
                        )
                elif parent.tag == "Iops" and element.tag == "Bucket":
                    document.drop.add(id(element))
                if id(element) not in document.drop:
                    self.lines[id(element)] = number
                document.stack.append(element)
            else:
                document.stack.pop()
                if id(element) in document.drop:
                    document.drop.discard(id(element))
                    self.lines.pop(id(element), None)
                    if document.stack:
                        document.stack[-1].remove(element)

    def _close(self, at_end: bool = False) -> None:
        """The document ended (its ``</Results>``, or the end of the file: then it was cut short)."""
        document = self.document
        assert document is not None
        self.document = None
        try:
            document.parser.close()
        except ET.ParseError as exc:
            raise self._syntax_error(exc, document, truncated=at_end) from None
        if document.root is None:
            return
        _Results(self, document.root).read()
        self.lines.clear()

    def attributes(self) -> dict[str, str]:
        attributes = {}
        if len(self.computers) == 1:
            attributes["computer_name"] = next(iter(self.computers))
        if len(self.versions) == 1:
            attributes["diskspd_version"] = next(iter(self.versions))
        return attributes


# --------------------------------------------------------------------------
# One <Results> document


class _Results:
    def __init__(self, reader: _Reader, root: ET.Element) -> None:
        self.reader = reader
        self.root = root

    def line(self, element: ET.Element | None) -> int:
        if element is not None and id(element) in self.reader.lines:
            return self.reader.lines[id(element)]
        return self.reader.lines.get(id(self.root), 1)

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
            self.reader.computers.add(computer)
        if version:
            self.reader.versions.add(version)
        started = parse_diskspd_time(self.text(system, "RunTime") or "")
        profile = root.find("Profile")
        specs = (
            [self.span_spec(element) for element in profile.findall("TimeSpans/TimeSpan")]
            if profile is not None
            else []
        )
        results = root.findall("TimeSpan")
        if not results:
            self.reader.truncated_at = self.line(root)
        elapsed = 0.0
        for index, timespan in enumerate(results, start=1):
            spec = specs[index - 1] if index <= len(specs) else None
            if timespan.find("Error") is not None:
                self.reader.interrupted_at = self.reader.interrupted_at or self.line(timespan)
                continue
            run = self.run(timespan, index, spec, started, elapsed)
            elapsed += run.span_s
            self.reader.runs.append(run)

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

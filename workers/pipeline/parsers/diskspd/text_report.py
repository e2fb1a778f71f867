"""DiskSpd text report: the whole file -- its invocations, their timespans, and each run's result."""

from __future__ import annotations

import re

from workers.pipeline.parsers.diskspd.model import RunResult, Subject
from workers.pipeline.parsers.diskspd.reading import error
from workers.pipeline.parsers.diskspd.records import check_seconds, later, run_params
from workers.pipeline.parsers.diskspd.text_input import (
    Profile,
    command_line_span,
    read_command,
    read_input,
    read_system,
)
from workers.pipeline.parsers.diskspd.text_lines import (
    COMMAND,
    CPU_HEADER,
    PARSER,
    RESULTS,
    SECTION_TITLES,
    SECTIONS,
    STARS,
    Lines,
    cell_number,
    top_level,
)
from workers.pipeline.parsers.diskspd.text_tables import (
    Run,
    half_unit,
    read_cpu,
    read_io_table,
    read_percentile_table,
    truncated,
)

# Results block: "actual test time:\t10.00s", "thread count:\t\t4".
_TEST_TIME = re.compile(r"^actual test time:\s*([\d.]+)(?:\s*s)?$", re.IGNORECASE)  # on stripped text
_THREAD_COUNT = re.compile(r"^thread count:\s*(\d{1,9})\s*$", re.IGNORECASE)


class Report:
    def __init__(self, lines: Lines) -> None:
        self.lines = lines
        self.profiles: list[Profile] = []
        self.runs: list[RunResult] = []
        self.markers = False  # saw anything that only a DiskSpd report has
        self.interrupted_at: int | None = None
        self.empty = True

    # ---- top level

    def read(self) -> None:
        lines = self.lines
        profile: Profile | None = None
        while (line := lines.peek()) is not None:
            stripped = line.strip()
            lines.next()
            if stripped:
                self.empty = False
            command = COMMAND.match(line)
            if command:
                self.markers = True
                profile = self._new_profile()
                profile.command = read_command(lines, command.group(1))
            elif stripped == "Input parameters:":
                self.markers = True
                if profile is None or profile.input_seen or profile.results:
                    profile = self._new_profile()
                profile.input_seen = True
                read_input(lines, profile)
            elif stripped == "System information:":
                self.markers = True
                if profile is None or profile.results:
                    profile = self._new_profile()
                read_system(lines, profile)
            elif (results := RESULTS.match(stripped)) is not None:
                self.markers = True
                index = int(results.group(1))
                if profile is None or index <= profile.last_index:
                    # timespans count up within one invocation: this is another one,
                    # pasted without its command line and parameters
                    profile = self._new_profile()
                profile.last_index = index
                self._results(profile, index)
            # anything else (console prompts, msinfo32 dumps, "Totals:") is free text

    def _new_profile(self) -> Profile:
        profile = Profile(line=self.lines.number)
        self.profiles.append(profile)
        return profile

    def _results(self, profile: Profile, index: int) -> None:
        lines = self.lines
        run = Run(index=index, line=lines.number)
        heading: str | None = None
        while (line := lines.peek()) is not None:
            text = line.strip()
            if top_level(text):
                break
            lines.next()
            if not text or STARS.match(text):
                continue
            number = lines.number
            if match := _TEST_TIME.match(text):
                run.test_time = cell_number(match.group(1), "actual test time", number)
                run.test_time_half = half_unit(match.group(1))
            elif match := _THREAD_COUNT.match(text):
                run.thread_count = int(match.group(1))
            elif text.lower().startswith("the test was interrupted"):
                run.interrupted = True
            elif CPU_HEADER.search(text):
                read_cpu(lines, run)
            elif (section := SECTIONS.get(text.lower())) is not None:
                read_io_table(lines, run, section)
                heading = None
            elif text.startswith("%-ile"):
                read_percentile_table(lines, run, text, heading, number)
                heading = None
            else:
                heading = text
        self._close_run(profile, run)

    def _close_run(self, profile: Profile, run: Run) -> None:
        if run.interrupted and not run.tables:
            self.interrupted_at = self.interrupted_at or run.line
            return
        if not run.tables and run.test_time is None:
            raise truncated(self.lines, "its results", run)
        for section in ("total", "read", "write"):
            if section not in run.tables:
                raise truncated(self.lines, f"the {SECTION_TITLES[section]} table", run)
        span = profile.spans[run.index - 1] if 0 < run.index <= len(profile.spans) else None
        if span is None and not profile.input_seen and profile.command:
            span = command_line_span(profile.command)
        measured = run.latency_column or (span is not None and span.measure_latency)
        if measured and "" not in run.percentiles and any(t.total.ios for t in run.tables.values()):
            raise truncated(self.lines, "its latency percentiles", run)
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


def _measured_seconds(run: Run) -> float:
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

"""FSCT summary -> steps and measurements: the preamble, the results and response-time tables."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.fsct.layout import PARSER, Header, Row, error, header_of, is_banner, split_cells
from workers.pipeline.parsers.fsct.values import MISSING, Clock, Value
from workers.pipeline.records import Measurement, Parsed, Step

_VERSION = re.compile(r"\bFSCT\)?\s+v?(\d+(?:\.\d+)+)", re.IGNORECASE)
# The value is stripped afterwards: "(\S.*?)\s*$" is quadratic in a run of spaces inside it.
_KEY_VALUE = re.compile(r"^\s*([A-Za-z][A-Za-z0-9 _./-]{0,39}?)\s*:\s+(\S.*)$")


@dataclass
class Reader:
    """Collects the preamble and the rows of both tables, line by line."""

    attributes: dict[str, Any] = field(default_factory=dict)
    results: list[Row] = field(default_factory=list)
    responses: list[Row] = field(default_factory=list)
    results_header: Header | None = None
    table: Header | None = None
    in_preamble: bool = True
    truncated: str | None = None

    def feed(self, number: int, line: str, ended: bool) -> None:
        stripped = line.strip()
        if not stripped or stripped.startswith("***"):
            self.table = None
            if stripped:
                self.in_preamble = False
            return
        header = header_of(line, number)
        if header is not None:
            self.in_preamble = False
            if header.kind == "results":
                if self.results_header is not None:
                    raise error(
                        f"a second results table starts here (the first is on line {self.results_header.line}); "
                        "upload one FSCT run per file",
                        number,
                    )
                self.results_header = header
            self.table = header
            return
        if self.table is None:
            if self.in_preamble:
                self._preamble(line)
            return
        try:
            row = self._row(self.table, number, line)
        except ParseError:
            if ended:
                raise
            # The last line of the file, cut without a line break: a truncated copy.
            self.truncated = f"the file ends inside line {number}; that row was left out"
            return
        (self.results if self.table.kind == "results" else self.responses).append(row)

    def _preamble(self, line: str) -> None:
        if is_banner(line):
            version = _VERSION.search(line)
            if version:
                self.attributes["fsct_version"] = version.group(1)
            return
        match = _KEY_VALUE.match(line)
        if match:
            key = re.sub(r"[^a-z0-9]+", "_", match.group(1).lower()).strip("_")
            if key:
                self.attributes[key] = match.group(2).rstrip()

    def _row(self, header: Header, number: int, line: str) -> Row:
        cells = split_cells(line, header.delimiter)
        if len(cells) < len(header.fields):
            missing = header.labels[len(cells)]
            raise error(
                f"row has {len(cells)} fields but the header on line {header.line} has "
                f"{len(header.fields)} (no {missing!r})",
                number,
                len(line) + 1,
            )
        if len(cells) > len(header.fields):
            extra = cells[len(header.fields)]
            hint = (
                "; a scenario name with spaces needs tab-separated columns"
                if header.kind == "responses"
                else ""
            )
            raise error(
                f"row has {len(cells)} fields but the header on line {header.line} has {len(header.fields)}{hint}",
                number,
                extra.column,
            )
        values = {name: cell for name, cell in zip(header.fields, cells, strict=True) if name is not None}
        row = Row(number, values, header.delimiter)
        # Check every value now, so a bad row is found where it is.
        for name in values:
            Value(row, name).check()
        return row

    # ----------------------------------------------------------------------
    # The result

    def result(self, context: ParseContext) -> Parsed:
        header = self.results_header
        if header is None:
            raise error(
                "no FSCT results table found: expected a header line starting with 'Users' "
                "and holding 'Throughput' and 'Overload' (see the accepted layout in the README)",
                line=1,
            )
        if not self.results:
            raise error("the FSCT results table has no rows", header.line)
        clock = Clock(context.timezone)
        steps = self._steps(header, clock, context)
        by_users: dict[int, Step] = {}
        measurements: list[Measurement] = []
        for row, step in zip(self.results, steps, strict=True):
            by_users[step.users] = step
            measurements.extend(_step_measurements(row, step))
        seen: set[tuple[int, str]] = set()
        for row in self.responses:
            response = _response(row, by_users, seen)
            if response is not None:
                measurements.append(response)
        attributes = dict(self.attributes)
        if self.truncated:
            attributes["truncated"] = self.truncated
        return Parsed(
            parser=PARSER, tool="fsct", measurements=measurements, steps=steps, run_attributes=attributes
        )

    def _steps(self, header: Header, clock: Clock, context: ParseContext) -> list[Step]:
        fields = set(header.fields)
        has_duration = bool(fields & {"duration_ms", "duration_s"})
        if "started" not in fields and not has_duration:
            raise error(
                "the FSCT results give no step times: add Started and Ended (or Duration [ms]) columns",
                header.line,
            )
        cursor: datetime | None = None
        if "started" not in fields:
            started_at = context.extra.get("started_at", "").strip()
            if not started_at:
                raise error(
                    "the FSCT results have no Started column; upload the file with started_at "
                    "(ISO 8601) so the steps can be laid out from their durations",
                    header.line,
                )
            cursor = clock.utc(started_at, "started_at", None, None)
        steps: list[Step] = []
        users_seen: dict[int, int] = {}
        for row in self.results:
            users = int(Value(row, "users").number())
            if users in users_seen:
                raise error(
                    f"users {users} appears twice (first on line {users_seen[users]})",
                    row.line,
                    row.values["users"].column,
                )
            users_seen[users] = row.line
            start = Value(row, "started").time(clock) if "started" in fields else cursor
            if start is None:
                raise error("Started is missing", row.line, row.values["started"].column)
            end = Value(row, "ended").time(clock) if "ended" in fields else None
            if end is None:
                duration = _duration(row)
                if duration is None:
                    where = row.values.get("ended")
                    raise error(
                        "the step has neither Ended nor a Duration", row.line, where.column if where else None
                    )
                try:
                    end = start + duration
                except OverflowError:
                    raise error("the step ends after the year 9999", row.line) from None
            if end <= start:
                raise error("the step ends before it starts", row.line)
            if steps and start < steps[-1].ended_at:
                raise error(
                    f"the step starts before the previous one ({steps[-1].users} users) ended", row.line
                )
            steps.append(Step(users, start, end))
            cursor = end
        return steps


def _response(row: Row, by_users: dict[int, Step], seen: set[tuple[int, str]]) -> Measurement | None:
    users_cell = row.values["users"]
    users = int(Value(row, "users").number())
    step = by_users.get(users)
    if step is None:
        raise error(f"users {users} has no step in the results table", row.line, users_cell.column)
    scenario_cell = row.values["scenario"]
    scenario = scenario_cell.text
    if scenario.lower() in MISSING:
        raise error("the scenario name is empty", row.line, scenario_cell.column)
    if (users, scenario) in seen:
        raise error(f"scenario {scenario!r} appears twice for {users} users", row.line, scenario_cell.column)
    seen.add((users, scenario))
    value = Value(row, "response_ms").optional_number()
    if value is None:
        return None
    return Measurement(
        time=step.started_at,
        metric="fsct.response_ms",
        value=value,
        unit="ms",
        subject=scenario,
        line=row.line,
    )


def _duration(row: Row) -> timedelta | None:
    for name, factor in (("duration_ms", 0.001), ("duration_s", 1.0)):
        if name in row.values:
            value = Value(row, name).optional_number()
            if value is not None:
                try:
                    return timedelta(seconds=value * factor)
                except OverflowError:  # beyond timedelta's billion days, or infinite
                    raise Value(row, name).fail("a duration of a plausible length") from None
    return None


def _step_measurements(row: Row, step: Step) -> list[Measurement]:
    out: list[Measurement] = []

    def add(metric: str, value: float, unit: str) -> None:
        out.append(Measurement(time=step.started_at, metric=metric, value=value, unit=unit, line=row.line))

    add("fsct.throughput_sps", Value(row, "throughput").number(), "scenarios/s")
    overload = Value(row, "overload_pct").number() if "overload_pct" in row.values else None
    flag = Value(row, "overloaded").flag() if "overloaded" in row.values else None
    if overload is not None:
        add("fsct.overload_pct", overload, "%")
    add("fsct.overloaded", flag if flag is not None else (1.0 if overload else 0.0), "")
    for name, metric, unit in (("errors", "fsct.errors", ""), ("errors_pct", "fsct.errors_pct", "%")):
        if name in row.values:
            value = Value(row, name).optional_number()
            if value is not None:
                add(metric, value, unit)
    return out

"""Robocopy jobs -> measurements and run attributes (one job: the run's; several: per job too)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from workers.pipeline.parsers.robocopy.dates import Clock, local_time
from workers.pipeline.parsers.robocopy.jobs import Job
from workers.pipeline.parsers.robocopy.numbers import PARSER, error, show
from workers.pipeline.parsers.robocopy.table import COLUMNS, COUNT_ROWS, TIME_COLUMNS
from workers.pipeline.records import Measurement, Parsed


def _whole(value: Decimal) -> float:
    return float(value.to_integral_value(ROUND_HALF_EVEN))


@dataclass
class _Stamped:
    time: datetime
    started: datetime | None
    ended: datetime | None
    elapsed: float | None


def _stamp(job: Job, clock: Clock) -> _Stamped:
    started_field = job.fields.get("started")
    started_local = local_time(started_field[0]) if started_field else None
    ended_local = local_time(job.ended[0]) if job.ended else None
    started = clock.utc(started_local, started_field[1]) if started_local and started_field else None
    if started is None:
        started = clock.upload_started()
    ended = None
    if ended_local and job.ended and (clock.zone is not None or started is None):
        ended = clock.utc(ended_local, job.ended[1])
    time = started or ended
    if time is None:
        if started_field:
            problem = f"its Started line reads {show(started_field[0])}, which is not a readable date"
            line = started_field[1]
        else:
            problem = "it has no Started line (written with /NJH?) and no readable Ended line"
            line = min(row_line for _, row_line in job.rows.values())
        raise error(
            f"robocopy job {job.number} has no usable start time: {problem}; upload the log with "
            "started_at (ISO 8601, e.g. 2026-03-17T12:09:37+08:00)",
            line,
        )
    elapsed = None
    if started_local and ended_local and started and ended and ended >= started:
        elapsed = (ended - started).total_seconds()
    return _Stamped(time, started, ended, elapsed)


def _measurements(job: Job, stamp: _Stamped, params: dict[str, str] | None) -> list[Measurement]:
    out: list[Measurement] = []

    until = stamp.ended if stamp.ended and stamp.ended > stamp.time else None

    def add(metric: str, value: float, unit: str, line: int) -> None:
        out.append(
            Measurement(
                time=stamp.time, metric=metric, value=value, unit=unit, line=line, params=params, until=until
            )
        )

    for kind in COUNT_ROWS:
        if kind in job.rows:
            row, line = job.rows[kind]
            unit = "B" if kind == "bytes" else "count"
            for column, value in zip(COLUMNS, row.values, strict=True):
                add(f"{kind}.{column}", _whole(value), unit, line)
    if "times" in job.rows:
        row, line = job.rows["times"]
        for column, value in zip(TIME_COLUMNS, row.values, strict=True):
            add(f"time.{column}_s", float(value), "s", line)
    if job.bytes_per_s:
        add("speed.bytes_per_s", float(job.bytes_per_s[0]), "B/s", job.bytes_per_s[1])
    if job.mb_per_min:
        add("speed.mb_per_min", float(job.mb_per_min[0]), "MiB/min", job.mb_per_min[1])
    if stamp.elapsed is not None and job.ended:
        add("elapsed_s", stamp.elapsed, "s", job.ended[1])
    return out


def _job_attributes(job: Job, stamp: _Stamped | None) -> dict[str, str]:
    attributes = {"job": str(job.number)}
    for key in ("source", "destination", "options"):
        if key in job.fields:
            attributes[key] = job.fields[key][0]
    if stamp and stamp.started:
        attributes["started_at"] = stamp.started.isoformat()
    if stamp and stamp.ended:
        attributes["ended_at"] = stamp.ended.isoformat()
    if job.partial:
        attributes["partial"] = "true"
    return attributes


def parsed(jobs: list[Job], clock: Clock) -> Parsed:
    complete = [job for job in jobs if job.rows]
    stamps = {job.number: _stamp(job, clock) for job in complete}
    several = len(complete) > 1
    measurements: list[Measurement] = []
    for job in complete:
        params = {"job": str(job.number)} if several else {}
        measurements.extend(_measurements(job, stamps[job.number], params))

    per_job = [_job_attributes(job, stamps.get(job.number)) for job in jobs]
    emitted = [entry for entry in per_job if int(entry["job"]) in stamps]
    attributes: dict[str, Any] = {}
    for key in ("source", "destination", "options"):
        values = {entry.get(key) for entry in emitted}
        if len(values) == 1 and None not in values:
            attributes[key] = values.pop()
    if "started_at" in emitted[0]:
        attributes["started_at"] = emitted[0]["started_at"]
    if "ended_at" in emitted[-1]:
        attributes["ended_at"] = emitted[-1]["ended_at"]
    if any(job.partial for job in jobs):
        attributes["partial"] = "true"
    errors = sum(job.errors for job in jobs)
    if errors:
        attributes["error_lines"] = str(errors)
    if len(jobs) > 1:
        attributes["jobs"] = per_job
    return Parsed(parser=PARSER, tool="robocopy", measurements=measurements, run_attributes=attributes)

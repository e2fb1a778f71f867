"""Load stage: the only stage that touches the database.

One transaction per upload: delete the rows this upload produced before (a
re-run replaces, never duplicates), upsert the series dictionary in bulk,
``COPY`` samples and measurements, apply load steps, and mark the upload
stored -- all or nothing, so partial rows are never visible. The parser's
row stream is consumed inside the transaction; a parse error half-way rolls
everything back.

Raw SQL here because it pays: ``COPY`` is several times faster than INSERT
and the ``unnest`` upsert resolves thousands of series in one round trip.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import cast

import psycopg
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from webapp.core.models import Host, Run, RunStep, Scenario, Upload
from webapp.core.runs import RunConflict, default_run, named_run, run_name
from webapp.timeseries.models import RollupDirty
from workers.pipeline.errors import ParseError
from workers.pipeline.records import CounterColumn, CounterTable, Measurement, Parsed

COPY_SAMPLES = "COPY counter_sample (time, series_id, value, upload_id) FROM STDIN"
COPY_MEASUREMENTS = (
    "COPY measurement (time, run_id, metric, subject, value, unit, repetition, upload_id) FROM STDIN"
)
FLUSH_BYTES = 1 << 20


@dataclass
class LoadResult:
    rows: int = 0
    first: datetime | None = None
    last: datetime | None = None
    runs: set[int] = field(default_factory=set)
    # Counter samples changed, so their rollups are out of date (timings have none).
    rollups_stale: bool = False


def _copy_text(value: str) -> str:
    """Escape a text value for COPY's text format."""
    return value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def delete_rows(upload_id: int) -> tuple[datetime | None, datetime | None]:
    """Remove an upload's rows; return the time range they covered (for rollups)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "WITH gone AS (DELETE FROM counter_sample WHERE upload_id = %s RETURNING time) "
            "SELECT min(time), max(time) FROM gone",
            [upload_id],
        )
        first, last = cursor.fetchone()
        cursor.execute("DELETE FROM measurement WHERE upload_id = %s", [upload_id])
    return first, last


def upsert_series(host: Host, columns: list[CounterColumn]) -> list[int]:
    """Series ids for ``columns`` (in order), creating the missing ones in one statement."""
    if not columns:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            """
            WITH wanted AS (
                SELECT * FROM unnest(%s::text[], %s::text[], %s::text[], %s::text[])
                    AS w(object, instance, counter, source_path)
            ), inserted AS (
                INSERT INTO timeseries_counterseries (host_id, object, instance, counter, source_path)
                SELECT %s, object, instance, counter, source_path FROM wanted
                ON CONFLICT (host_id, object, instance, counter) DO NOTHING
                RETURNING id, object, instance, counter
            )
            SELECT id, object, instance, counter FROM inserted
            UNION ALL
            SELECT s.id, s.object, s.instance, s.counter
            FROM timeseries_counterseries s JOIN wanted w USING (object, instance, counter)
            WHERE s.host_id = %s
            """,
            [
                [c.object for c in columns],
                [c.instance for c in columns],
                [c.counter for c in columns],
                [c.source_path for c in columns],
                host.pk,
                host.pk,
            ],
        )
        ids = {(o, i, c): sid for sid, o, i, c in cursor.fetchall()}
        missing = [c for c in columns if (c.object, c.instance, c.counter) not in ids]
        if missing:
            # Inserted by a concurrent loader after this statement's snapshot: ON
            # CONFLICT waited for it, but only a new statement can see the row.
            cursor.execute(
                "SELECT s.id, s.object, s.instance, s.counter FROM timeseries_counterseries s "
                "JOIN unnest(%s::text[], %s::text[], %s::text[]) AS w(object, instance, counter) "
                "USING (object, instance, counter) WHERE s.host_id = %s",
                [
                    [c.object for c in missing],
                    [c.instance for c in missing],
                    [c.counter for c in missing],
                    host.pk,
                ],
            )
            ids.update({(o, i, c): sid for sid, o, i, c in cursor.fetchall()})
    return [ids[(c.object, c.instance, c.counter)] for c in columns]


def _raw_cursor() -> psycopg.Cursor[object]:
    connection.ensure_connection()
    raw = connection.connection
    assert raw is not None
    return cast("psycopg.Cursor[object]", raw.cursor())


def copy_counters(upload: Upload, host: Host, table: CounterTable, result: LoadResult) -> None:
    series_ids = upsert_series(host, table.columns)
    suffix = f"\t{upload.pk}\n"
    prefixes = [f"\t{sid}\t" for sid in series_ids]
    count = 0
    first: datetime | None = None
    last: datetime | None = None
    with _raw_cursor() as cursor, cursor.copy(COPY_SAMPLES) as copy:
        parts: list[str] = []
        size = 0
        for row in table.rows:
            stamp = row.time.isoformat()
            if first is None or row.time < first:
                first = row.time
            if last is None or row.time > last:
                last = row.time
            line = "".join(
                [
                    stamp + prefix + value + suffix
                    for prefix, value in zip(prefixes, row.values, strict=True)
                    if value is not None
                ]
            )
            count += line.count("\n")
            parts.append(line)
            size += len(line)
            if size >= FLUSH_BYTES:
                copy.write("".join(parts))
                parts.clear()
                size = 0
        if parts:
            copy.write("".join(parts))
    result.rows += count
    result.first = first if result.first is None or (first and first < result.first) else result.first
    result.last = last if result.last is None or (last and last > result.last) else result.last


def _execution_run(base: Run, params: Mapping[str, str]) -> Run:
    """The run for one execution (e.g. one block size) of a multi-run file, under ``base``."""
    label = " ".join(f"{k}={v}" for k, v in sorted(params.items()))
    run = named_run(base.campaign, base.scenario, run_name(f"{base.name} · {label}"))
    wanted = {**run.attributes, **params, "parent_run": base.name}
    if run.attributes != wanted:
        run.attributes = wanted
        run.save(update_fields=["attributes"])
    return run


def _resolve_runs(upload: Upload, items: list[Measurement]) -> list[Run]:
    """The run of each measurement, creating scenarios, runs and hosts as needed.

    Done before the COPY starts: the connection cannot run other statements
    while a COPY is in progress.
    """
    runs: dict[str, Run] = {}
    hosts: set[tuple[int, str]] = set()
    resolved: list[Run] = []
    for item in items:
        scenario_key = repr(sorted(item.scenario.items())) if item.scenario is not None else ""
        key = scenario_key + "|" + (repr(sorted(item.params.items())) if item.params else "")
        found = runs.get(key)
        if found is None:
            if item.scenario is not None:
                scenario = Scenario.for_dims(upload.campaign, item.scenario)
                if upload.run is None or scenario.pk != upload.scenario_id:
                    try:
                        found = default_run(upload.campaign, scenario)
                    except RunConflict as exc:  # a run named like this scenario belongs to another
                        raise ParseError(str(exc), line=item.line) from None
            found = found or upload.run
            if found is None:
                raise ParseError("results need a run; give the upload a scenario or run", line=item.line)
            if item.params:
                found = _execution_run(found, item.params)
            runs[key] = found
        run = found
        if item.host and (run.pk, item.host) not in hosts:
            host, _ = Host.objects.get_or_create(
                project=upload.campaign.project, name=item.host, defaults={"role": upload.role}
            )
            run.hosts.add(host)
            hosts.add((run.pk, item.host))
        resolved.append(run)
    return resolved


def copy_measurements(upload: Upload, stream: Iterable[Measurement], result: LoadResult) -> None:
    # Results are small (a timing file, a benchmark summary), so holding them is fine.
    items = list(stream)
    if not items:
        return
    runs = _resolve_runs(upload, items)
    with _raw_cursor() as cursor, cursor.copy(COPY_MEASUREMENTS) as copy:
        parts = [
            f"{item.time.isoformat()}\t{run.pk}\t{_copy_text(item.metric)}\t{_copy_text(item.subject)}\t"
            f"{item.value!r}\t{_copy_text(item.unit)}\t{item.repetition}\t{upload.pk}\n"
            for item, run in zip(items, runs, strict=True)
        ]
        copy.write("".join(parts))
    result.rows += len(items)
    result.runs.update(run.pk for run in runs)
    times = [item.time for item in items]
    result.first = min([*times, *([result.first] if result.first else [])])
    result.last = max([*times, *([result.last] if result.last else [])])


def _apply_steps(upload: Upload, parsed: Parsed, result: LoadResult) -> None:
    run = upload.run
    if run is None:
        return
    for step in parsed.steps:
        RunStep.objects.update_or_create(
            run=run, users=step.users, started_at=step.started_at, defaults={"ended_at": step.ended_at}
        )
    if upload.step_users is not None and result.first and result.last and result.last > result.first:
        RunStep.objects.update_or_create(
            run=run, users=upload.step_users, started_at=result.first, defaults={"ended_at": result.last}
        )


def _widen_run(run: Run, first: datetime | None, last: datetime | None, parsed: Parsed) -> None:
    changed = []
    if first and (run.started_at is None or first < run.started_at):
        run.started_at = first
        changed.append("started_at")
    if last and (run.ended_at is None or last > run.ended_at):
        run.ended_at = last
        changed.append("ended_at")
    if parsed.tool and not run.tool:
        run.tool = parsed.tool
        changed.append("tool")
    if parsed.run_attributes:
        run.attributes = {**run.attributes, **parsed.run_attributes}
        changed.append("attributes")
    if changed:
        run.save(update_fields=changed)


def load(upload: Upload, parsed: Parsed, *, encoding: str = "") -> LoadResult:
    """Replace this upload's rows with ``parsed``, atomically; mark it stored."""
    result = LoadResult()
    try:
        with transaction.atomic():
            old_first, old_last = delete_rows(upload.pk)
            if parsed.counters is not None:
                if upload.host is None:
                    raise ParseError("counter data needs the upload's host", parser=parsed.parser)
                copy_counters(upload, upload.host, parsed.counters, result)
            copy_measurements(upload, parsed.measurements, result)
            _apply_steps(upload, parsed, result)
            if upload.run is not None:
                _widen_run(upload.run, result.first, result.last, parsed)
                if upload.host is not None:
                    upload.run.hosts.add(upload.host)
            for run_id in result.runs - ({upload.run.pk} if upload.run else set()):
                _widen_run(Run.objects.get(pk=run_id), None, None, parsed)
            dirty = [(a, b) for a, b in ((old_first, old_last), (result.first, result.last)) if a and b]
            if parsed.counters is not None and dirty:
                RollupDirty.objects.bulk_create(RollupDirty(start=a, end=b) for a, b in dirty)
                result.rollups_stale = True
            Upload.objects.filter(pk=upload.pk).update(
                status=Upload.Status.STORED,
                parser=parsed.parser,
                encoding=encoding,
                rows=result.rows,
                error=None,
                finished_at=timezone.now(),
            )
    except (psycopg.errors.UniqueViolation, IntegrityError) as exc:
        cause = exc if isinstance(exc, psycopg.Error) else exc.__cause__
        detail = cause.diag.message_detail if isinstance(cause, psycopg.Error) else None
        detail = detail or str(exc)
        raise ParseError(
            f"the file holds the same sample or result twice, or overlaps rows another upload already stored ({detail})",
            parser=parsed.parser,
        ) from None
    except psycopg.errors.DataError as exc:
        raise ParseError(
            f"a value could not be stored: {exc.diag.message_primary}", parser=parsed.parser
        ) from None
    return result

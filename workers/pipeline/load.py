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

import operator
import struct
import sys
from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import compress, repeat
from typing import cast

import psycopg
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from webapp.core.models import Host, Run, Upload
from webapp.core.runs import drop_unused, runs_with_results_of
from webapp.timeseries import backend, samples, timing_summary
from webapp.timeseries.models import CounterSeries, RollupDirty
from workers import testhooks
from workers.pipeline.errors import ParseError
from workers.pipeline.placement import RunPlacer, settle_runs
from workers.pipeline.recorded_hosts import recorded_hosts
from workers.pipeline.records import CounterColumn, CounterTable, Measurement, Parsed

COPY_MEASUREMENTS = (
    "COPY measurement (time, run_id, host_id, metric, subject, value, unit, repetition, users, upload_id)"
    " FROM STDIN"
)
FLUSH_BYTES = 1 << 20
_NULL = "\\N"  # COPY text format's null

# COPY's binary format: a signature, flags and header-extension length (both
# 0), then per row a field count and each field as (byte length, value), and
# a field count of -1 at the end. A sample is (day, series_id, row_id,
# value), and so is a row's time (``webapp.timeseries.samples``):
# timestamptz is int8 microseconds since 2000-01-01 UTC.
_BINARY_SIGNATURE = b"PGCOPY\n\xff\r\n\x00" + bytes(8)
_BINARY_TRAILER = b"\xff\xff"
_SAMPLE = struct.Struct(">hiqiqiqid")
_RECORD = _SAMPLE.size
_DAY_AT = 6  # byte offset of the day in a record
_ROW_AT = 30  # of the row id
_VALUE_AT = 42  # and of the value
_TIMESTAMP = struct.Struct(">q")
_DAY_US = 86_400_000_000
_PG_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


@dataclass
class LoadResult:
    rows: int = 0
    first: datetime | None = None
    last: datetime | None = None
    runs: set[int] = field(default_factory=set)
    # Counter samples changed, so their rollups are out of date.
    rollups_stale: bool = False
    # Measurements changed in these runs: their timing summaries are marked dirty.
    timings_stale: bool = False


def _copy_text(value: str) -> str:
    """Escape a text value for COPY's text format."""
    return value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def delete_rows(upload_id: int) -> tuple[datetime, datetime] | None:
    """Remove an upload's rows; return the time range its samples covered (for rollups), if any.

    The runs whose measurements went are marked for their timing summaries in the same transaction.
    """
    _, span = samples.delete_upload(upload_id)
    with connection.cursor() as cursor:
        cursor.execute(
            "WITH gone AS (DELETE FROM measurement WHERE upload_id = %s RETURNING run_id) "
            "SELECT DISTINCT run_id FROM gone",
            [upload_id],
        )
        timing_summary.mark_dirty([run_id for (run_id,) in cursor.fetchall()])
    return span


def _refuse_repeated_samples(upload: Upload, parser: str, result: LoadResult) -> None:
    """A series holds one sample per moment: refuse a file that repeats one or overlaps another upload's."""
    if result.first is None or result.last is None:
        return
    clash = samples.first_clash(upload.pk, result.first, result.last)
    if clash is None:
        return
    series = CounterSeries.objects.select_related("host").get(pk=clash[0])
    raise ParseError(
        "the file holds the same sample twice, or overlaps samples another upload already stored "
        f"({series} at {clash[1].isoformat()})",
        parser=parser,
    )


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


def _series_ids(hosts: list[Host], columns: list[CounterColumn]) -> list[int]:
    """Series ids for ``columns`` recorded on ``hosts`` (one per column), one upsert per machine."""
    ids: list[int] = [0] * len(columns)
    by_host: dict[int, list[int]] = {}
    for index, host in enumerate(hosts):
        by_host.setdefault(host.pk, []).append(index)
    machines = {host.pk: host for host in hosts}
    for host_id, indexes in by_host.items():
        chosen = [columns[i] for i in indexes]
        for index, series_id in zip(indexes, upsert_series(machines[host_id], chosen), strict=True):
            ids[index] = series_id
    return ids


def _raw_cursor() -> psycopg.Cursor[object]:
    connection.ensure_connection()
    raw = connection.connection
    assert raw is not None
    return cast("psycopg.Cursor[object]", raw.cursor())


def _sample_record(series_id: int) -> bytes:
    """One sample in COPY's binary format (``samples.COPY_POINTS``), its day, row and value still zero."""
    return _SAMPLE.pack(4, 8, 0, 8, series_id, 8, 0, 8, 0.0)


def copy_counters(upload: Upload, hosts: list[Host], table: CounterTable, result: LoadResult) -> None:
    """COPY the table's samples in binary format, one block of records per row, then its rows.

    Binary spares the server parsing a timestamp and a decimal per sample.
    Every record of a row differs only in its value, so a row is built from
    a template of its records (series already in place) with 24 strided byte
    assignments -- eight each for the day, the row id and the value -- instead
    of Python work per cell. A row that holds a value gets the upload's next
    row id; the rows' times follow the samples, as points (``samples``).
    ``hosts`` is each column's machine.
    """
    series_ids = _series_ids(hosts, table.columns)
    records = [_sample_record(sid) for sid in series_ids]
    first_row = row_id = samples.first_row(upload.pk)
    times = array("q")  # each row's time, microseconds since 2000 (8 bytes a row)
    everything = b"".join(records)
    template, template_mask = everything, None
    swap = sys.byteorder == "little"  # binary COPY is big-endian
    count = 0
    first: datetime | None = None
    last: datetime | None = None
    with _raw_cursor() as cursor, cursor.copy(samples.COPY_POINTS) as copy:
        block = bytearray(_BINARY_SIGNATURE)
        for row in table.rows:
            moment = row.time
            if first is None or moment < first:
                first = moment
            if last is None or moment > last:
                last = moment
            values = row.values
            if len(values) != len(records):
                raise ValueError(f"a row has {len(values)} values for {len(records)} columns")
            if values.count(None):
                mask = tuple(map(operator.is_not, values, repeat(None)))
                if mask != template_mask:
                    # Gaps usually repeat (a process that has exited), so one template is kept.
                    template, template_mask = b"".join(compress(records, mask)), mask
                present: list[str | None] = list(compress(values, mask))
                row_template = template
            else:
                present = values
                row_template = everything
            width = len(present)
            if not width:
                continue
            numbers = array("d", map(float, cast("list[str]", present)))
            micros = (moment - _PG_EPOCH) // _MICROSECOND
            times.append(micros)
            day = _TIMESTAMP.pack(micros - micros % _DAY_US)
            row_bytes = _TIMESTAMP.pack(row_id)
            row_id += 1
            if swap:
                numbers.byteswap()
            packed = numbers.tobytes()
            start = len(block)
            block += row_template
            for byte in range(8):
                block[start + _DAY_AT + byte :: _RECORD] = day[byte : byte + 1] * width
                block[start + _ROW_AT + byte :: _RECORD] = row_bytes[byte : byte + 1] * width
                block[start + _VALUE_AT + byte :: _RECORD] = packed[byte::8]
            count += width
            if len(block) >= FLUSH_BYTES:
                copy.write(block)
                block = bytearray()
        # Each row's time: the row's point of series ROW_TIME, in microseconds since 2000.
        for number, micros in enumerate(times, first_row):
            block += _SAMPLE.pack(
                4, 8, micros - micros % _DAY_US, 8, samples.ROW_TIME, 8, number, 8, float(micros)
            )
            if len(block) >= FLUSH_BYTES:
                copy.write(block)
                block = bytearray()
        block += _BINARY_TRAILER
        copy.write(block)
        testhooks.pause("copying", upload)  # test-only, off unless HEADROOM_TEST_PAUSE_DIR is set
    result.rows += count
    result.first = first if result.first is None or (first and first < result.first) else result.first
    result.last = last if result.last is None or (last and last > result.last) else result.last


def copy_measurements(upload: Upload, stream: Iterable[Measurement], result: LoadResult) -> None:
    """COPY the measurements ``stream`` yields, a placed batch at a time (``RunPlacer.batches``).

    A timings file may hold millions of rows: each batch is copied before the
    next is pulled, all inside the caller's transaction, so memory stays at one
    batch and a bad row half-way still leaves nothing behind.
    """
    placer = RunPlacer(upload)
    for items, placed in placer.batches(stream):
        _copy_batch(upload, items, placed, result)
    placer.finish()


def _copy_batch(
    upload: Upload, items: list[Measurement], placed: list[tuple[Run, int]], result: LoadResult
) -> None:
    if not items:
        return
    with _raw_cursor() as cursor, cursor.copy(COPY_MEASUREMENTS) as copy:
        copy.write(
            "".join(
                f"{item.time.isoformat()}\t{run.pk}\t{host_id}\t{_copy_text(item.metric)}\t"
                f"{_copy_text(item.subject)}\t{item.value!r}\t{_copy_text(item.unit)}\t{item.repetition}\t"
                f"{_NULL if item.users is None else item.users}\t{upload.pk}\n"
                for item, (run, host_id) in zip(items, placed, strict=True)
            )
        )
    result.rows += len(items)
    result.runs.update(run.pk for run, _ in placed)
    first = min(item.time for item in items)
    last = max(max(item.time, item.until or item.time) for item in items)
    result.first = first if result.first is None else min(result.first, first)
    result.last = last if result.last is None else max(result.last, last)


def load(upload: Upload, parsed: Parsed, *, encoding: str = "") -> LoadResult:
    """Replace this upload's rows with ``parsed``, atomically; mark it stored."""
    result = LoadResult()
    try:
        with transaction.atomic():
            backend.allow_unbounded_decompression()
            old_runs = runs_with_results_of(upload.pk)
            old_span = delete_rows(upload.pk)
            machines = [upload.host] if upload.host is not None else []
            if parsed.counters is not None:
                hosts = recorded_hosts(upload, parsed.counters.columns, parsed.parser)
                machines = list({host.pk: host for host in hosts}.values())
                copy_counters(upload, hosts, parsed.counters, result)
                _refuse_repeated_samples(upload, parsed.parser, result)
            copy_measurements(upload, parsed.measurements, result)
            settle_runs(upload, parsed, result.first, result.last, result.runs, machines)
            drop_unused(old_runs - result.runs)  # parsed again, its figures may have moved
            dirty = [old_span] if old_span else []
            if result.first and result.last:
                dirty.append((result.first, result.last))
            if result.runs:
                timing_summary.mark_dirty(result.runs)
                result.timings_stale = True
            if parsed.counters is not None and dirty:
                RollupDirty.objects.bulk_create(RollupDirty(start=a, end=b) for a, b in dirty)
                result.rollups_stale = True
            Upload.objects.filter(pk=upload.pk).update(
                status=Upload.Status.STORED,
                parser=parsed.parser,
                encoding=encoding,
                rows=result.rows,
                error=None,
                raw_expired_at=None,
                finished_at=timezone.now(),
            )
            testhooks.pause("loaded", upload)  # test-only, off unless HEADROOM_TEST_PAUSE_DIR is set
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

"""The UX-capacity part of ``make bench-views`` (issue 21): timing studies of 1 M and 10 M timings.

Each study has the counter study's five scenarios, one run each with the same
ten load steps (``views.step_windows``); :data:`CLIENTS` clients time logons
through every step, repetitions 1..:data:`REPETITIONS` in turn, every
``spacing`` seconds: the 10 M study is the 1 M one timed ten times as often.
The logon mean is 1,000 ms to 500 users, then 5 ms more per user (the
issue's study), with a client offset and noise. Rows go in with raw binary
``COPY``; the timing summary is then refreshed as the worker would after a load.
"""

from __future__ import annotations

import random
import struct
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

CLIENTS = 20
REPETITIONS = 5


def create_timing_study(
    project, slug: str, first_day: int
) -> list[tuple[int, list[tuple[int, datetime, datetime]]]]:
    """A campaign with one run per scenario and its clients; (run id, steps) per run."""
    from bench.views import RUN_SECONDS, scenario_runs, step_windows
    from webapp.core.models import Campaign, Host
    from webapp.core.runs import apply_steps

    campaign = Campaign.objects.create(project=project, slug=slug, name=slug)
    clients = [
        Host.objects.create(project=project, name=f"{slug}-CL{n:02d}", role=Host.Role.CLIENT)
        for n in range(CLIENTS)
    ]
    runs = []
    for run in scenario_runs(campaign, clients, first_day, 1, "logons", RUN_SECONDS, tool="timing"):
        windows = step_windows(run.started_at)
        apply_steps(run, windows)
        runs.append((run.pk, windows))
    return runs


# COPY's binary format (as workers/pipeline/load.py writes samples): a header, per row a field
# count and each field as (byte length, value), -1 at the end. A row here is (time, run_id,
# host_id, metric 'logon', subject '', value, unit 'ms', repetition, upload_id 0).
_SIGNATURE = b"PGCOPY\n\xff\r\n\x00" + bytes(8)
_TRAILER = b"\xff\xff"
_ROW = struct.Struct(">hiqiqiqi5si" + "idi2siiiq")  # subject: length 0, no bytes
_PG_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)


def _rows(run_id: int, steps, hosts: list[int], spacing: float, seed: int) -> Iterator[bytes]:
    rng = random.Random(seed)
    pack = _ROW.pack
    chunk = bytearray()
    count = 0
    for users, began, ended in steps:
        mean = 1000.0 if users <= 500 else 1000.0 + 5.0 * (users - 500)
        seconds = (ended - began).total_seconds()
        base = (began - _PG_EPOCH) // timedelta(microseconds=1)
        for number, host in enumerate(hosts):
            offset = (number - CLIENTS / 2) * 20.0
            at, repetition = number * spacing / CLIENTS, 0
            while at < seconds:
                value = mean + offset + rng.gauss(0, 100)
                chunk += pack(
                    9, 8, base + round(at * 1e6), 8, run_id, 8, host, 5, b"logon", 0,
                    8, value, 2, b"ms", 4, repetition % REPETITIONS + 1, 8, 0,
                )  # fmt: skip
                at += spacing
                repetition += 1
                count += 1
            if len(chunk) >= 1 << 20:
                yield bytes(chunk)
                chunk.clear()
    if chunk:
        yield bytes(chunk)


def load_timings(slug: str, runs, spacing: float, seed: int) -> int:
    """COPY (binary) every client's logons of the study, one every ``spacing`` seconds per client, then
    summarise them as the worker does after a load (``timing_summary.refresh_pending``)."""
    from django.db import connection

    from webapp.core.models import Host
    from webapp.timeseries import timing_summary

    hosts = list(
        Host.objects.filter(name__startswith=f"{slug}-CL").order_by("name").values_list("pk", flat=True)
    )
    raw = connection.connection
    written = 0
    copy_sql = (
        "COPY measurement (time, run_id, host_id, metric, subject, value, unit, repetition, upload_id)"
        " FROM STDIN (FORMAT BINARY)"
    )
    with raw.cursor() as cursor, cursor.copy(copy_sql) as copy:
        copy.write(_SIGNATURE)
        for index, (run_id, steps) in enumerate(runs):
            for block in _rows(run_id, steps, hosts, spacing, seed + index):
                copy.write(block)
                written += len(block)
        copy.write(_TRAILER)
    raw.commit()
    # Statistics first, as autovacuum would gather after a load this size: without them the
    # planner misjudges the refresh's aggregates over ten million fresh rows (3-5x slower).
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE measurement")
    started = time.perf_counter()
    timing_summary.mark_dirty([run_id for run_id, _ in runs])
    timing_summary.refresh_pending()
    print(f"  timing summary refreshed in {time.perf_counter() - started:.1f} s")
    return written // _ROW.size  # every row is the same size

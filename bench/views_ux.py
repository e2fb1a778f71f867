"""The UX-capacity part of ``make bench-views`` (issue 21): timing studies of 1 M and 10 M timings.

Each study has the counter study's five scenarios, one run each with the same
ten load steps (``views.step_windows``); :data:`CLIENTS` clients time logons
through every step, repetitions 1..:data:`REPETITIONS` in turn, every
``spacing`` seconds: the 10 M study is the 1 M one timed ten times as often.
The logon mean is 1,000 ms to 500 users, then 5 ms more per user (the
issue's study), with a client offset and noise. Rows go in with raw ``COPY``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import datetime, timedelta

CLIENTS = 20
REPETITIONS = 5


def create_timing_study(
    project, slug: str, first_day: int
) -> list[tuple[int, list[tuple[int, datetime, datetime]]]]:
    """A campaign with one run per scenario and its clients; (run id, steps) per run."""
    from bench.views import DAY0, RUN_SECONDS, SCENARIOS, step_windows
    from webapp.core.models import Campaign, Host, Run, Scenario
    from webapp.core.runs import apply_steps

    campaign = Campaign.objects.create(project=project, slug=slug, name=slug)
    clients = [
        Host.objects.create(project=project, name=f"{slug}-CL{n:02d}", role=Host.Role.CLIENT)
        for n in range(CLIENTS)
    ]
    runs = []
    for index, (dims, _) in enumerate(SCENARIOS):
        start = DAY0 + timedelta(days=first_day + index)
        run = Run.objects.create(
            campaign=campaign,
            scenario=Scenario.for_dims(campaign, dims),
            name=f"logons-{index}",
            tool="timing",
            started_at=start,
            ended_at=start + timedelta(seconds=RUN_SECONDS),
        )
        run.hosts.add(*clients)
        windows = step_windows(start)
        apply_steps(run, windows)
        runs.append((run.pk, windows))
    return runs


def _rows(run_id: int, steps, hosts: list[int], spacing: float, seed: int) -> Iterator[str]:
    rng = random.Random(seed)
    chunk: list[str] = []
    for users, began, ended in steps:
        mean = 1000.0 if users <= 500 else 1000.0 + 5.0 * (users - 500)
        seconds = (ended - began).total_seconds()
        for number, host in enumerate(hosts):
            offset = (number - CLIENTS / 2) * 20.0
            at, repetition = number * spacing / CLIENTS, 0
            while at < seconds:
                stamp = (began + timedelta(seconds=at)).isoformat()
                value = mean + offset + rng.gauss(0, 100)
                chunk.append(
                    f"{stamp}\t{run_id}\t{host}\tlogon\t\t{value:.3f}\tms\t{repetition % REPETITIONS + 1}\t0\n"
                )
                at += spacing
                repetition += 1
            if len(chunk) >= 50_000:
                yield "".join(chunk)
                chunk.clear()
    if chunk:
        yield "".join(chunk)


def load_timings(slug: str, runs, spacing: float, seed: int) -> int:
    """COPY every client's logons of the study, one every ``spacing`` seconds per client."""
    from django.db import connection

    from webapp.core.models import Host

    hosts = list(
        Host.objects.filter(name__startswith=f"{slug}-CL").order_by("name").values_list("pk", flat=True)
    )
    raw = connection.connection
    rows = 0
    copy_sql = "COPY measurement (time, run_id, host_id, metric, subject, value, unit, repetition, upload_id) FROM STDIN"
    with raw.cursor() as cursor, cursor.copy(copy_sql) as copy:
        for index, (run_id, steps) in enumerate(runs):
            for text in _rows(run_id, steps, hosts, spacing, seed + index):
                copy.write(text)
                rows += text.count("\n")
    raw.commit()
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE measurement")
    return rows

"""Finding the run an upload or a result belongs to."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import datetime

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from webapp.core.models import Campaign, Run, RunStep, Scenario

MAX_RUN_NAME = 200  # Run.name's column
# Tools whose file is one test execution with its own parameters (block size, queue
# depth, copy options ...): such a file never shares a run with another one unless
# the uploader named the run.
EXECUTION_TOOLS = frozenset(("diskspd", "fio", "robocopy"))


class RunConflict(Exception):
    pass


def default_run(campaign: Campaign, scenario: Scenario) -> Run:
    """The run that collects a scenario's results when no run name was given: named after it."""
    return named_run(campaign, scenario, run_name(scenario.label))


def is_default_run(run: Run) -> bool:
    """True for the run an upload without a run name lands in (named after its scenario)."""
    return run.name == run_name(run.scenario.label)


def run_name(text: str) -> str:
    """``text`` as a run name (200 characters at most); a longer text is cut and given a hash
    of the whole, so two long texts alike at the start still name two runs."""
    if len(text) <= MAX_RUN_NAME:
        return text
    digest = hashlib.sha256(text.encode()).hexdigest()[:14]
    return f"{text[: MAX_RUN_NAME - 16]} ~{digest}"


def named_run(campaign: Campaign, scenario: Scenario, name: str) -> Run:
    """Get or create the run ``name``; it must belong to ``scenario``."""
    try:
        with transaction.atomic():
            run, _ = Run.objects.get_or_create(campaign=campaign, name=name, defaults={"scenario": scenario})
    except IntegrityError:  # created concurrently
        run = Run.objects.get(campaign=campaign, name=name)
    if run.scenario_id != scenario.pk:
        raise RunConflict(
            f"run {name!r} already belongs to scenario {run.scenario.label!r}, not {scenario.label!r}"
        )
    return run


StepKey = tuple[int, datetime]  # (users, started_at): a step's identity within its run


def apply_steps(
    run: Run, steps: Iterable[tuple[int, datetime, datetime | None]], end_at: datetime | None = None
) -> None:
    """Apply a load-step timeline ``(users, started_at, ended_at)`` to ``run``.

    A step without an end stays open until the next step starts or ``end_at``
    closes it; re-sending a step (same users and start) updates it. The
    timeline is worked out in memory against the run's steps (read once, the
    run locked so two senders do not interleave) and written with one upsert:
    a fixed number of queries however many steps come.
    """
    with transaction.atomic():
        Run.objects.select_for_update().filter(pk=run.pk).values_list("pk").first()
        before: dict[StepKey, datetime | None] = {
            (users, started_at): ended_at
            for users, started_at, ended_at in RunStep.objects.filter(run=run).values_list(
                "users", "started_at", "ended_at"
            )
        }
        after = timeline(before, steps, end_at)
        changed = [
            RunStep(run=run, users=users, started_at=started_at, ended_at=ended_at)
            for (users, started_at), ended_at in after.items()
            if (users, started_at) not in before or before[(users, started_at)] != ended_at
        ]
        RunStep.objects.bulk_create(
            changed,
            batch_size=1000,
            update_conflicts=True,
            unique_fields=["run", "users", "started_at"],
            update_fields=["ended_at"],
        )


def timeline(
    current: dict[StepKey, datetime | None],
    steps: Iterable[tuple[int, datetime, datetime | None]],
    end_at: datetime | None,
) -> dict[StepKey, datetime | None]:
    """The steps' ends after applying ``steps`` in start order (and ``end_at``) to ``current``."""
    result = dict(current)
    open_steps = {key for key, ended in result.items() if ended is None}

    def close_before(moment: datetime) -> None:
        for key in [key for key in open_steps if key[1] < moment]:
            result[key] = moment
            open_steps.discard(key)

    for users, started_at, ended_at in sorted(
        ((u, aware(s), None if e is None else aware(e)) for u, s, e in steps), key=lambda step: step[1]
    ):
        close_before(started_at)
        result[(users, started_at)] = ended_at
        if ended_at is None:
            open_steps.add((users, started_at))
        else:
            open_steps.discard((users, started_at))
    if end_at is not None:
        close_before(aware(end_at))
    return result


def aware(moment: datetime) -> datetime:
    """A naive time as the database would store it (in the default time zone)."""
    return timezone.make_aware(moment) if timezone.is_naive(moment) else moment


# A run is held by what it is made of: an upload placed in it, a result row, a load step.
# Counter samples belong to hosts, not runs, so an upload of samples holds its run as an upload.
_DROP_UNUSED_RUNS = """
    WITH gone AS (
        DELETE FROM core_run r WHERE r.id = ANY(%s)
        AND NOT EXISTS (SELECT 1 FROM core_upload u WHERE u.run_id = r.id)
        AND NOT EXISTS (SELECT 1 FROM measurement m WHERE m.run_id = r.id)
        AND NOT EXISTS (SELECT 1 FROM core_runstep s WHERE s.run_id = r.id)
        RETURNING r.id, r.scenario_id
    ), hosts AS (
        DELETE FROM core_run_hosts h USING gone WHERE h.run_id = gone.id
    )
    SELECT id, scenario_id FROM gone
"""
_DROP_UNUSED_SCENARIOS = """
    DELETE FROM core_scenario c WHERE c.id = ANY(%s)
    AND NOT EXISTS (SELECT 1 FROM core_run r WHERE r.scenario_id = c.id)
    AND NOT EXISTS (SELECT 1 FROM core_upload u WHERE u.scenario_id = c.id)
    RETURNING c.id
"""


def runs_with_results_of(upload_id: int) -> set[int]:
    """The runs holding result rows of an upload (a benchmark file's runs of its own among them)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT DISTINCT run_id FROM measurement WHERE upload_id = %s", [upload_id])
        return {run_id for (run_id,) in cursor.fetchall()}


def drop_unused(run_ids: Iterable[int], scenario_ids: Iterable[int] = ()) -> tuple[list[int], list[int]]:
    """Delete the runs of ``run_ids`` that nothing holds any more, then the scenarios left empty.

    A run is kept while an upload is placed in it, a result row (``measurement``) or a
    load step points at it: a run an agent streams live samples or timings into holds
    those uploads, and one given steps through ``POST /api/v1/runs/{id}/steps`` holds
    its steps. A scenario (of ``scenario_ids`` or of a dropped run) goes when no run
    and no upload is left in it. Returns the ids of the runs and scenarios deleted.

    A process that remembered a dropped run for its uploads (``placements``) finds it
    gone when its next upload's insert fails, and places that upload afresh.
    """
    wanted = sorted(set(run_ids))
    with transaction.atomic(), connection.cursor() as cursor:
        runs: list[tuple[int, int]] = []
        if wanted:
            cursor.execute(_DROP_UNUSED_RUNS, [wanted])
            runs = cursor.fetchall()
        scenarios = sorted({*scenario_ids, *(scenario_id for _, scenario_id in runs)})
        dropped: list[int] = []
        if scenarios:
            cursor.execute(_DROP_UNUSED_SCENARIOS, [scenarios])
            dropped = [scenario_id for (scenario_id,) in cursor.fetchall()]
    return sorted(run_id for run_id, _ in runs), sorted(dropped)

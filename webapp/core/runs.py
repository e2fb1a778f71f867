"""Finding the run an upload or a result belongs to."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import datetime

from django.db import IntegrityError, transaction

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


def apply_steps(
    run: Run, steps: Iterable[tuple[int, datetime, datetime | None]], end_at: datetime | None = None
) -> None:
    """Apply a load-step timeline ``(users, started_at, ended_at)`` to ``run``.

    A step without an end stays open until the next step starts or ``end_at``
    closes it; re-sending a step (same users and start) updates it.
    """
    with transaction.atomic():
        for users, started_at, ended_at in sorted(steps, key=lambda s: s[1]):
            RunStep.objects.filter(run=run, ended_at=None, started_at__lt=started_at).update(
                ended_at=started_at
            )
            RunStep.objects.update_or_create(
                run=run, users=users, started_at=started_at, defaults={"ended_at": ended_at}
            )
        if end_at is not None:
            RunStep.objects.filter(run=run, ended_at=None, started_at__lt=end_at).update(ended_at=end_at)

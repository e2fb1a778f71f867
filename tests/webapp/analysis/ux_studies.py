"""Hand-built timing studies: clients timing logons into one run with load steps, every mean exact."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import timedelta

from tests.webapp.analysis.studies import DAY
from webapp.core.models import Campaign, Host, Run, RunStep, Scenario
from webapp.timeseries.models import Measurement

STEPS = tuple(range(100, 1001, 100))
CLIENTS = {"CL01": -300.0, "CL02": -100.0, "CL03": 100.0, "CL04": 300.0}  # offsets that cancel out
JITTER = {1: -50.0, 2: 0.0, 3: 50.0}  # per repetition; cancels out too


def logon_ms(users: int) -> float:
    """The issue's curve: 1,000 ms up to 500 users, then 5 ms more per user (2,000 at 700)."""
    return 1000.0 if users <= 500 else 1000.0 + 5.0 * (users - 500)


def timing_run(
    campaign: Campaign,
    dims: Mapping[str, str],
    mean: Callable[[int], float] = logon_ms,
    users: Sequence[int] = STEPS,
    clients: Mapping[str, float] = CLIENTS,
    jitter: Mapping[int, float] = JITTER,
    metric: str = "logon",
    run: Run | None = None,
) -> Run:
    """A run of ``dims`` whose steps are ``users`` (10 minutes each, 12 apart), or ``run``'s own steps;
    each client times ``metric`` once per repetition in every step at ``mean(users)`` + its offset + the
    repetition's jitter."""
    if run is None:
        run = Run.objects.create(
            campaign=campaign,
            scenario=Scenario.for_dims(campaign, dims),
            name=f"logons-{Run.objects.count()}",
            tool="timing",
        )
        for index, count in enumerate(users):
            began = DAY + timedelta(minutes=12 * index)
            RunStep.objects.create(
                run=run, users=count, started_at=began, ended_at=began + timedelta(minutes=10)
            )
    rows = []
    for number, (name, offset) in enumerate(clients.items()):
        client, _ = Host.objects.get_or_create(
            project=campaign.project, name=name, defaults={"role": Host.Role.CLIENT}
        )
        run.hosts.add(client)
        for step in run.steps.all():
            for repetition, extra in jitter.items():
                rows.append(
                    Measurement(
                        run=run,
                        host_id=client.pk,
                        metric=metric,
                        value=mean(step.users) + offset + extra,
                        unit="ms",
                        repetition=repetition,
                        time=step.started_at + timedelta(minutes=2 * repetition, seconds=10 * number),
                        upload_id=0,
                    )
                )
    Measurement.objects.bulk_create(rows)
    return run

"""Hand-built capacity studies: flat counter levels per load step, so every step average is exact."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta

from tests.factories import make_campaign
from webapp.core.models import Campaign, Host, Project, Run, RunStep, Scenario, Series
from webapp.timeseries.models import CounterSample, CounterSeries, RollupDirty

DAY = datetime(2016, 5, 2, 9, 0, tzinfo=UTC)


def add_run(
    campaign: Campaign,
    dims: Mapping[str, str],
    levels: Mapping[str, Sequence[float]],
    users: Sequence[int] = (100, 200, 300, 400, 500),
    host: str = "FS01",
    attributes: Mapping[str, object] | None = None,
    day: int = 0,
    name: str | None = None,
) -> Run:
    """A run of ``dims`` on server ``host``: counter path -> its level at each step (10 samples per step)."""
    server, _ = Host.objects.get_or_create(
        project=campaign.project,
        name=host,
        defaults={"role": Host.Role.SERVER, "attributes": attributes or {}},
    )
    run = Run.objects.create(
        campaign=campaign,
        scenario=Scenario.for_dims(campaign, dims),
        name=name or f"run-{Run.objects.count()}",
        tool="perfmon",
    )
    for index, count in enumerate(users):
        began = DAY + timedelta(days=day, minutes=12 * index)
        RunStep.objects.create(run=run, users=count, started_at=began, ended_at=began + timedelta(minutes=10))
    return add_server(run, server, levels)


def add_server(run: Run, server: Host | str, levels: Mapping[str, Sequence[float]]) -> Run:
    """``server``'s counters in ``run`` at ``levels`` (one per load step, 20 samples per step)."""
    if isinstance(server, str):
        server, _ = Host.objects.get_or_create(
            project=run.campaign.project, name=server, defaults={"role": Host.Role.SERVER}
        )
    run.hosts.add(server)
    start = run.steps.order_by("started_at")[0].started_at
    samples = []
    for path, values in levels.items():
        obj, rest = path.strip("\\").split("\\", 1)[0], path.strip("\\").split("\\", 1)[1]
        instance = ""
        if "(" in obj:
            obj, instance = obj[:-1].split("(", 1)
        series, _ = CounterSeries.objects.get_or_create(
            host=server, object=obj, instance=instance, counter=rest
        )
        for index, level in enumerate(values):
            began = start + timedelta(minutes=12 * index)
            samples += [
                CounterSample(series=series, time=began + timedelta(seconds=30 * i), value=level, upload_id=0)
                for i in range(20)
            ]
    CounterSample.objects.bulk_create(samples)
    # As the loader leaves it: the range is dirty, so reads are exact from the raw samples.
    RollupDirty.objects.create(start=start, end=start + timedelta(hours=2))
    return run


CPU = "\\Processor(_Total)\\% Processor Time"
SERIES_USERS = (100, 200, 300, 400, 500)


def series_campaign(
    project: Project, slug: str, key: str, slopes: Mapping[str, float], series: str = "fs-monthly"
) -> Campaign:
    """A campaign of ``series`` at ``key``: SMB 2.1 and 3.02, three runs each whose CPU rises ``slope`` % per
    user (the runs' slopes differ by +-1 %), on server ``FS-<slug>``."""
    campaign = make_campaign(project=project, slug=slug)
    campaign.series, _ = Series.objects.get_or_create(
        slug=series, defaults={"project": project, "name": series}
    )
    campaign.series_key = key
    campaign.save()
    day = 0
    for dialect in ("2.1", "3.02"):
        for spread in (0.99, 1.0, 1.01):
            levels = {CPU: [u * slopes[dialect] * spread for u in SERIES_USERS]}
            add_run(campaign, {"smb_dialect": dialect}, levels, SERIES_USERS, host=f"FS-{slug}", day=day)
            day += 1
    return campaign

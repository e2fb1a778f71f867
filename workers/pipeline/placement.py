"""Placement stage: which run and host each result belongs to, and what the upload's runs become.

Between parse and load: the loader (``load``) only writes rows; every decision
about runs is here -- the run and host of each measurement (``RunPlacer``), an
execution's own run (``execution_run``), and once the rows are in, the upload's
load steps, its runs' spans, tool and hosts, and a benchmark file leaving the
scenario's default run (``settle_runs``).

Loading streams measurements (a timings file may hold millions), so runs are
resolved as figures arrive, ``BATCH_ROWS`` at a time, and what was resolved is
cached by small keys -- a scenario and parameter set, a host name, a (run, host)
link, a run's span -- never per row.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from itertools import islice

from webapp.core.models import Host, Run, RunStep, Scenario, Upload
from webapp.core.runs import EXECUTION_TOOLS, RunConflict, default_run, is_default_run, named_run, run_name
from workers.pipeline.errors import ParseError
from workers.pipeline.own_runs import leave_default_run, scenario_run
from workers.pipeline.recorded_hosts import host_named
from workers.pipeline.records import Measurement, Parsed

# Measurements placed and copied at a time: a timings file of millions of rows is never held.
BATCH_ROWS = 10_000


def execution_run(base: Run, params: Mapping[str, str], upload: Upload | None = None) -> Run:
    """The run of one execution (e.g. one block size) under ``base``.

    With ``upload`` the run is that upload's own (a file sent without a run name is one
    execution: it never shares a run, nor its attributes, with another file); without, it is
    shared by every upload of ``base`` with the same ``params`` (a sweep inside a named run).
    """
    label = " ".join(f"{k}={v}" for k, v in sorted(params.items()))
    if upload is not None:
        own = f"{upload.filename or 'upload'} #{upload.pk}"
        name = " · ".join(filter(None, (base.name, own, label)))
    else:
        name = f"{base.name} · {label}"
    try:
        run = named_run(base.campaign, base.scenario, run_name(name))
    except RunConflict as exc:
        raise ParseError(str(exc)) from None
    wanted = {**run.attributes, **params, "parent_run": base.name}
    if upload is not None:
        wanted["upload"] = str(upload.pk)
    if run.attributes != wanted:
        run.attributes = wanted
        run.save(update_fields=["attributes"])
    return run


def widen_run(run: Run, first: datetime | None, last: datetime | None, parsed: Parsed | None) -> None:
    """Stretch ``run`` over ``first``..``last`` and give it ``parsed``'s tool and attributes.

    A benchmark file uploaded without a run name left its figures in runs of its own
    (``RunPlacer``): the scenario's default run takes neither its times nor its
    attributes, so no execution's block size or options land on a run shared by others.
    """
    if parsed is not None and parsed.tool in EXECUTION_TOOLS and is_default_run(run):
        return
    changed = []
    if first and (run.started_at is None or first < run.started_at):
        run.started_at = first
        changed.append("started_at")
    if last and (run.ended_at is None or last > run.ended_at):
        run.ended_at = last
        changed.append("ended_at")
    if parsed is not None and parsed.tool and not run.tool:
        run.tool = parsed.tool
        changed.append("tool")
    if parsed is not None and parsed.run_attributes:
        run.attributes = {**run.attributes, **parsed.run_attributes}
        changed.append("attributes")
    if changed:
        run.save(update_fields=changed)


def _key(dims: Mapping[str, str] | None) -> str:
    return repr(sorted(dims.items())) if dims is not None else ""


class RunPlacer:
    """The run and host id of each measurement, creating scenarios, runs and hosts as needed.

    The host is the machine the file says recorded the figure (``Measurement.host``),
    else the upload's; 0 when neither is known. It is part of a result's identity, so
    many clients reporting into one run never collide.

    Figures carrying ``params`` come from one benchmark execution (DiskSpd, fio,
    robocopy). Uploaded into a named run, a file with one parameter set goes to that
    run and a file with several to a run per set under it; uploaded without a run name,
    each set gets a run of the upload's own under the scenario's default run, so
    figures of different block sizes, queue depths or mixes are never averaged
    together and one execution's attributes never land on another's run.

    Only the named-run case needs the whole file (how many sets it holds): such
    figures ``wait`` and are placed together once the stream has ended. They come from
    benchmark summaries, a handful of figures per execution; timings carry no params,
    so millions of timing rows never wait.

    Placement runs between COPYs: the connection cannot run other statements while
    a COPY is in progress.
    """

    def __init__(self, upload: Upload) -> None:
        self.upload = upload
        self.named = upload.run is not None and not is_default_run(upload.run)
        self._runs: dict[str, Run] = {}
        self._host_ids: dict[str, int] = {}
        self._linked: set[tuple[int, int]] = set()
        self._spans: dict[int, tuple[Run, datetime, datetime]] = {}
        # Every parameter set placed so far. Figures that depend on the count all wait, so
        # when they are placed (in one call) this holds every set of the file.
        self._executions: set[str] = set()

    def waits(self, item: Measurement) -> bool:
        """Whether ``item``'s run depends on every parameter set of the file."""
        return self.named and item.params is not None

    def batches(
        self, stream: Iterable[Measurement]
    ) -> Iterator[tuple[list[Measurement], list[tuple[Run, int]]]]:
        """``stream`` placed ``BATCH_ROWS`` at a time: each batch's figures with their (run, host id).

        A batch is placed when the loader asks for it, after the previous one was
        copied; the figures that ``wait`` come last, together.
        """
        waiting: list[Measurement] = []
        items = iter(stream)
        while batch := list(islice(items, BATCH_ROWS)):
            ready = [item for item in batch if not self.waits(item)]
            waiting += [item for item in batch if self.waits(item)]
            yield ready, self.place(ready)
        yield waiting, self.place(waiting)

    def place(self, items: list[Measurement]) -> list[tuple[Run, int]]:
        self._executions.update(_key(item.params) for item in items if item.params is not None)
        return [(run, self._host(item, run)) for item in items for run in (self._run(item),)]

    def _run(self, item: Measurement) -> Run:
        upload = self.upload
        key = _key(item.scenario) + "|" + _key(item.params)
        found = self._runs.get(key)
        if found is None:
            if item.scenario is not None:
                scenario = Scenario.for_dims(upload.campaign, item.scenario)
                if upload.run is None or scenario.pk != upload.scenario_id:
                    try:
                        found = default_run(upload.campaign, scenario)
                    except RunConflict as exc:  # a run named like this scenario belongs to another
                        raise ParseError(str(exc), line=item.line) from None
            found = found or upload.run or scenario_run(upload)
            if found is None:
                raise ParseError("results need a run; give the upload a scenario or run", line=item.line)
            if item.params is not None:
                if found != upload.run or not self.named:
                    found = execution_run(found, item.params, upload)
                elif len(self._executions) > 1:
                    found = execution_run(found, item.params)
            self._runs[key] = found
        if item.params is not None and found != upload.run:
            end = max(item.time, item.until or item.time)
            _, first, last = self._spans.get(found.pk, (found, item.time, end))
            self._spans[found.pk] = (found, min(first, item.time), max(last, end))
        return found

    def _host(self, item: Measurement, run: Run) -> int:
        upload = self.upload
        host_id = upload.host_id or 0
        if item.host:
            if item.host not in self._host_ids:
                self._host_ids[item.host] = host_named(upload, item.host).pk
            host_id = self._host_ids[item.host]
        if host_id and (run.pk, host_id) not in self._linked:
            run.hosts.add(host_id)
            self._linked.add((run.pk, host_id))
        return host_id

    def finish(self) -> None:
        """An execution's own run spans its own figures."""
        for run, first, last in self._spans.values():
            widen_run(run, first, last, None)


def settle_runs(
    upload: Upload,
    parsed: Parsed,
    first: datetime | None,
    last: datetime | None,
    runs: set[int],
    machines: list[Host],
) -> None:
    """Once the rows are in: the upload's load steps, its runs' spans, tool and hosts.

    ``first``..``last`` is the time the upload's rows cover, ``runs`` the runs its
    measurements went to and ``machines`` the hosts that recorded its figures. A
    benchmark file whose figures all went to runs of their own leaves the
    scenario's default run (``own_runs.leave_default_run``).
    """
    _apply_steps(upload, parsed, first, last)
    if upload.run is not None:
        widen_run(upload.run, first, last, parsed)
        upload.run.hosts.add(*machines)
    for run_id in runs - ({upload.run.pk} if upload.run else set()):
        widen_run(Run.objects.get(pk=run_id), None, None, parsed)
    leave_default_run(upload, parsed, runs)


def _apply_steps(upload: Upload, parsed: Parsed, first: datetime | None, last: datetime | None) -> None:
    run = upload.run
    if run is None:
        return
    for step in parsed.steps:
        RunStep.objects.update_or_create(
            run=run, users=step.users, started_at=step.started_at, defaults={"ended_at": step.ended_at}
        )
    if upload.step_users is not None and first and last and last > first:
        RunStep.objects.update_or_create(
            run=run, users=upload.step_users, started_at=first, defaults={"ended_at": last}
        )

"""The runs a benchmark file's results live in when it was sent without a run name.

Such a file is placed in its scenario's default run when it arrives (``placements``),
but each execution in it gets a run of its own (``workers.pipeline.placement``); these
helpers keep the default run from being left behind empty, and find the file's runs
again when it is parsed a second time.
"""

from __future__ import annotations

from webapp.core.models import Run, Upload
from webapp.core.runs import RunConflict, default_run, drop_unused, is_default_run, run_name
from workers.pipeline.errors import ParseError
from workers.pipeline.records import Parsed


def scenario_run(upload: Upload) -> Run | None:
    """The scenario's default run, for an upload whose results live in runs of its own
    (``leave_default_run``) when it is parsed again: their names start with its name."""
    if upload.scenario is None:
        return None
    try:
        return default_run(upload.campaign, upload.scenario)
    except RunConflict as exc:
        raise ParseError(str(exc)) from None


def leave_default_run(upload: Upload, parsed: Parsed, runs: set[int]) -> None:
    """A file whose results all went to runs of its own leaves the scenario's default run.

    A benchmark file sent without a run name is placed in its scenario's default run
    when it arrives, but its figures land in a run of its own per execution
    (``workers.pipeline.placement``). The upload then points at that run (at none when it holds
    several executions; parsed again it finds them by name) and the default run goes
    when nothing else holds it, so no run without tool, times or steps is left behind.
    The upload's host is the host of its runs.
    """
    run = upload.run
    if run is None and upload.scenario is not None and runs:
        # Parsed again: scenario_run named its runs after the default run, which may be new.
        found = Run.objects.filter(campaign=upload.campaign, name=run_name(upload.scenario.label)).first()
        drop_unused([found.pk] if found and found.pk not in runs else [])
        return
    if run is None or not is_default_run(run) or not runs or run.pk in runs:
        return
    if parsed.counters is not None or parsed.steps or upload.step_users is not None:
        return  # the default run holds what this upload brought to it
    own = sorted(runs)
    upload.run = Run.objects.get(pk=own[0]) if len(own) == 1 else None
    Upload.objects.filter(pk=upload.pk).update(run=upload.run)
    if upload.host is not None:
        for run_id in own:
            Run.hosts.through.objects.get_or_create(run_id=run_id, host_id=upload.host.pk)
    drop_unused([run.pk])

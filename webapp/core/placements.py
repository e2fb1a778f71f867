"""Where an upload belongs -- its scenario, run and host -- remembered per process.

Agents send the same campaign, scenario, run and host with every upload of a
test, so resolving them (three get-or-creates, five round trips) on every
request is wasted work on the API's hottest path. A process keeps the ids it
resolved; they never change for a key, because scenarios, runs and hosts are
never renamed, only deleted with their campaign or project. A remembered id
whose row was deleted makes the upload's insert fail its foreign key, and
``accept`` then forgets the entry and resolves again (``forget``).

Only callers in autocommit mode (API requests) use what is remembered: inside
a transaction the foreign keys are checked at commit, too late to resolve
again, so ``place`` resolves afresh there.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db import connection

from webapp.core.models import Campaign, Host, Scenario
from webapp.core.runs import default_run, named_run

if TYPE_CHECKING:
    from webapp.core.upload_meta import UploadMeta

# Enough for every (scenario, run, host) a busy deployment's agents use at once.
MAX_REMEMBERED = 4096

Key = tuple[int, str, str, str]


@dataclass(frozen=True)
class Placement:
    scenario_id: int
    run_id: int
    host_id: int | None


_remembered: dict[Key, Placement] = {}


def key_for(campaign: Campaign, meta: UploadMeta) -> Key:
    scenario = json.dumps(dict(meta.scenario), sort_keys=True, default=str)
    return (campaign.pk, scenario, meta.run, meta.host)


def place(campaign: Campaign, meta: UploadMeta) -> Placement:
    """The scenario, run and host for ``meta`` in ``campaign``, created when missing.

    Raises ``RunConflict`` when the named run belongs to another scenario.
    """
    use_memory = not connection.in_atomic_block
    key = key_for(campaign, meta)
    if use_memory and (known := _remembered.get(key)) is not None:
        return known
    scenario = Scenario.for_dims(campaign, meta.scenario)
    run = named_run(campaign, scenario, meta.run) if meta.run else default_run(campaign, scenario)
    host_id = None
    if meta.host:
        host, _ = Host.objects.get_or_create(
            project=campaign.project, name=meta.host, defaults={"role": meta.role}
        )
        host_id = host.pk
    found = Placement(scenario_id=scenario.pk, run_id=run.pk, host_id=host_id)
    if use_memory:
        if len(_remembered) >= MAX_REMEMBERED:
            _remembered.clear()
        _remembered[key] = found
    return found


def forget(campaign: Campaign, meta: UploadMeta) -> bool:
    """Drop what is remembered for ``meta``; True if there was something."""
    return _remembered.pop(key_for(campaign, meta), None) is not None


def is_remembered(campaign: Campaign, meta: UploadMeta) -> bool:
    return not connection.in_atomic_block and key_for(campaign, meta) in _remembered

"""A logon study for the phase tests: built logons per scenario, parsed by the event log parser, stored."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tests.workers.pipeline.parsers.evtx.built_logon import collect, full_logon
from webapp.core.models import Campaign, Host, Run, Scenario, Upload
from webapp.timeseries.models import Measurement


def add_logons(campaign: Campaign, dims: Mapping[str, str], scales: Sequence[float], drop: str = "") -> Run:
    """One run of ``dims`` holding a built logon per scale (each on its own desktop ``VDI-<i>``),
    parsed by the parser's collector; ``drop`` leaves out every record of that provider (e.g. Shell-Core)."""
    upload = Upload.objects.create(
        campaign=campaign,
        sha256=f"{Upload.objects.count():064x}",
        size=0,
        storage_key="test",
        status="stored",
        parser="evtx_logon",
    )
    run = Run.objects.create(
        campaign=campaign, scenario=Scenario.for_dims(campaign, dims), name=f"logons {dims}", tool="evtx"
    )
    rows = []
    for index, scale in enumerate(scales):
        records = full_logon(computer=f"VDI-{index}", activity=f"A{index}", scale=scale)
        records = [r for r in records if not drop or drop not in r["data"]]
        for m in collect(records):
            host, _ = Host.objects.get_or_create(project=campaign.project, name=m.host or "")
            rows.append(
                Measurement(
                    time=m.time,
                    run=run,
                    host_id=host.pk,
                    metric=m.metric,
                    subject=m.subject,
                    value=m.value,
                    unit=m.unit,
                    repetition=m.repetition,
                    upload=upload,
                )
            )
    Measurement.objects.bulk_create(rows)
    return run

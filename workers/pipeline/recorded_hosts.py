"""The machine a counter was recorded on: its ``\\\\MACHINE\\`` prefix, not the uploader.

A perfmon log names the machine of every column (``\\\\WEBSERVER\\Processor(_Total)\\...``);
logs are often collected centrally, and relog merges several machines into one
file, so the uploading machine is only the fallback for columns that name none.
The uploader stays on the upload (``Upload.host``). Machine names are matched
without regard to case (Windows spells them as it likes: ``FS01``, ``fs01``)
and a DNS name matches its first label (an event log's ``Computer`` is
``FS01.corp.example``, a perfmon path says ``\\FS01``): ``host_named`` is the
one lookup, for counters and for results that name their machine. A machine
the project does not know yet is created with the upload's role.
"""

from __future__ import annotations

from collections.abc import Sequence

from webapp.core.models import Host, Upload
from workers.pipeline.errors import ParseError
from workers.pipeline.records import CounterColumn


def recorded_hosts(upload: Upload, columns: Sequence[CounterColumn], parser: str) -> list[Host]:
    """The host of each column, in order (``ParseError`` when neither the column nor the upload names one)."""
    known: dict[str, Host] = {}
    if upload.host is not None:
        known[upload.host.name.casefold()] = upload.host
    found: list[Host] = []
    for column in columns:
        name = column.host.strip()
        if not name:
            if upload.host is None:
                raise ParseError(
                    f"counter {column.object}\\{column.counter} names no machine: give the upload a host",
                    parser=parser,
                )
            found.append(upload.host)
            continue
        key = name.casefold()
        if key not in known:
            known[key] = host_named(upload, name)
        found.append(known[key])
    return found


def host_named(upload: Upload, name: str) -> Host:
    """The project's machine called ``name`` (any case; a DNS name or its first label), made when new."""
    project = upload.campaign.project
    hosts = Host.objects.filter(project=project).order_by("pk")
    found = hosts.filter(name__iexact=name).first()
    if found is None and "." in name.strip("."):
        found = hosts.filter(name__iexact=name.split(".", 1)[0]).first()
    if found is None and "." not in name:
        longer = list(hosts.filter(name__istartswith=f"{name}.")[:2])
        found = longer[0] if len(longer) == 1 else None
    if found is None:
        found, _ = Host.objects.get_or_create(project=project, name=name, defaults={"role": upload.role})
    return found

"""The machine a counter was recorded on: its ``\\\\MACHINE\\`` prefix, not the uploader.

A perfmon log names the machine of every column (``\\\\WEBSERVER\\Processor(_Total)\\...``);
logs are often collected centrally, and relog merges several machines into one
file, so the uploading machine is only the fallback for columns that name none.
The uploader stays on the upload (``Upload.host``). Machine names are matched
without regard to case (Windows spells them as it likes: ``FS01``, ``fs01``);
a machine the project does not know yet is created with the upload's role.
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
            project = upload.campaign.project
            host = Host.objects.filter(project=project, name__iexact=name).order_by("pk").first()
            if host is None:
                host, _ = Host.objects.get_or_create(
                    project=project, name=name, defaults={"role": upload.role}
                )
            known[key] = host
        found.append(known[key])
    return found

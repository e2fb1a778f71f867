"""Campaign archives: one ``.tar.gz`` holding a campaign's raw uploads and metadata.

``export_campaign`` writes ``manifest.json`` first (campaign, scenarios,
hosts, runs with their load steps and attributes, and each upload's metadata
as the sender gave it), then every upload's raw bytes as ``raw/<sha256>``,
streamed from the raw store.

``import_campaign`` restores an archive through the normal path, never a side
door: raw bytes go into the raw store (``rawstore.save``, checked against
their SHA-256), and each upload is recorded and queued by ``uploads.accept``,
so the workers parse it again exactly as if an agent had sent it. Runs, hosts
and load steps (``runs.apply_steps``) are recreated first, all in one
transaction, and the uploads are queued when it commits.

Counter samples are unique per host and time, and hosts belong to a project,
so an archive cannot be restored into a project that still holds the same
uploads: restore it into another project (``--project``).
"""

from __future__ import annotations

import io
import os
import re
import tarfile
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any, Final, Literal

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from webapp.core import rawstore
from webapp.core.models import Campaign, Host, Project, Run, Scenario, Upload
from webapp.core.rawstore import StoredRaw
from webapp.core.runs import apply_steps, named_run
from webapp.core.upload_meta import UploadMeta
from webapp.core.uploads import accept

FORMAT: Final = "headroom-campaign"
VERSION: Final = 1
MANIFEST = "manifest.json"
MAX_MANIFEST_BYTES = 256 * 1024**2
_RAW_MEMBER = re.compile(r"raw/([0-9a-f]{64})")


class ArchiveError(Exception):
    """The archive cannot be written or restored; the message says why."""


# --- The manifest -------------------------------------------------------------


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ProjectEntry(_Entry):
    slug: str
    name: str


class CampaignEntry(_Entry):
    slug: str
    name: str
    description: str = ""
    dimensions: list[str] = Field(default_factory=list)
    project: ProjectEntry


class HostEntry(_Entry):
    name: str
    role: str = Host.Role.CLIENT
    os: str = ""
    attributes: dict[str, Any] = Field(default_factory=dict)


class StepEntry(_Entry):
    users: int
    started_at: datetime
    ended_at: datetime | None = None


class RunEntry(_Entry):
    name: str
    scenario: dict[str, str]
    tool: str = ""
    started_at: datetime | None = None
    ended_at: datetime | None = None
    attributes: dict[str, Any] = Field(default_factory=dict)
    hosts: list[str] = Field(default_factory=list)
    steps: list[StepEntry] = Field(default_factory=list)


class UploadEntry(_Entry):
    """What the sender told us (``UploadMeta``), plus the bytes' identity."""

    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    size: int
    filename: str = ""
    kind: str = "auto"
    scenario: dict[str, str] = Field(default_factory=dict)
    host: str = ""
    role: str = Host.Role.CLIENT
    step: int | None = None
    timezone: str = ""
    run: str = ""
    extra: dict[str, Any] = Field(default_factory=dict)
    # At export time; informational, the import parses every upload again.
    status: str = ""
    rows: int = 0


class Manifest(_Entry):
    format: Literal["headroom-campaign"]
    version: Literal[1]
    exported_at: datetime
    campaign: CampaignEntry
    scenarios: list[dict[str, str]]
    hosts: list[HostEntry]
    runs: list[RunEntry]
    uploads: list[UploadEntry]


def build_manifest(campaign: Campaign) -> Manifest:
    """Everything needed to recreate ``campaign`` except the raw bytes."""
    uploads = list(_uploads(campaign))
    runs = list(
        Run.objects.filter(campaign=campaign)
        .select_related("scenario")
        .prefetch_related("hosts", "steps")
        .order_by("pk")
    )
    host_ids = {u.host_id for u in uploads if u.host_id} | {h.pk for r in runs for h in r.hosts.all()}
    return Manifest(
        format=FORMAT,
        version=VERSION,
        exported_at=timezone.now(),
        campaign=CampaignEntry(
            slug=campaign.slug,
            name=campaign.name,
            description=campaign.description,
            dimensions=list(campaign.dimensions or []),
            project=ProjectEntry(slug=campaign.project.slug, name=campaign.project.name),
        ),
        scenarios=[s.dims for s in Scenario.objects.filter(campaign=campaign).order_by("pk")],
        hosts=[
            HostEntry(name=h.name, role=h.role, os=h.os, attributes=h.attributes or {})
            for h in Host.objects.filter(pk__in=host_ids).order_by("name")
        ],
        runs=[
            RunEntry(
                name=r.name,
                scenario=r.scenario.dims,
                tool=r.tool,
                started_at=r.started_at,
                ended_at=r.ended_at,
                attributes=r.attributes or {},
                hosts=sorted(h.name for h in r.hosts.all()),
                steps=[
                    StepEntry(users=s.users, started_at=s.started_at, ended_at=s.ended_at)
                    for s in sorted(r.steps.all(), key=lambda s: (s.started_at, s.users))
                ],
            )
            for r in runs
        ],
        uploads=[
            UploadEntry(
                sha256=u.sha256,
                size=u.size,
                filename=u.filename,
                kind=u.kind,
                scenario=u.scenario.dims if u.scenario else {},
                host=u.host.name if u.host else "",
                role=u.role,
                step=u.step_users,
                timezone=u.timezone,
                run=u.run.name if u.run else "",
                extra=u.extra or {},
                status=u.status,
                rows=u.rows,
            )
            for u in uploads
        ],
    )


def _uploads(campaign: Campaign) -> QuerySet[Upload]:
    return Upload.objects.filter(campaign=campaign).select_related("scenario", "host", "run").order_by("pk")


# --- Export ---------------------------------------------------------------------


@dataclass(frozen=True)
class ExportSummary:
    path: Path
    uploads: int
    raw_bytes: int


def export_campaign(campaign: Campaign, path: Path) -> ExportSummary:
    """Write ``campaign`` to ``path``; the file appears only once it is complete."""
    manifest = build_manifest(campaign)
    keys = {u.sha256: rawstore.find(u.sha256) for u in manifest.uploads}
    missing = [sha256 for sha256, key in keys.items() if key is None]
    if missing:
        raise ArchiveError(
            f"{len(missing)} upload(s) have no raw bytes in the raw store (first: {missing[0]}); "
            "is HEADROOM_RAW_STORAGE / HEADROOM_RAW_DIR the one the workers use?"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, partial = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
    os.close(handle)
    try:
        with tarfile.open(partial, "w:gz") as tar:
            body = manifest.model_dump_json(indent=1).encode()
            _add(tar, MANIFEST, io.BytesIO(body), len(body))
            for entry in manifest.uploads:
                with rawstore.open_raw(str(keys[entry.sha256])) as raw:
                    _add(tar, f"raw/{entry.sha256}", raw, entry.size)
        os.replace(partial, path)
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise
    return ExportSummary(
        path=path, uploads=len(manifest.uploads), raw_bytes=sum(u.size for u in manifest.uploads)
    )


def _add(tar: tarfile.TarFile, name: str, data: IO[bytes], size: int) -> None:
    info = tarfile.TarInfo(name)
    info.size = size
    info.mtime = int(time.time())
    info.mode = 0o644
    tar.addfile(info, data)


# --- Import ---------------------------------------------------------------------


@dataclass(frozen=True)
class ImportResult:
    campaign: Campaign
    upload_ids: list[int]


def read_archive(path: Path) -> tuple[Manifest, dict[str, StoredRaw]]:
    """The manifest, and each upload's bytes saved into the raw store (checked against its hash).

    The archive is read once, front to back (a stream: no seeking in the
    gzip), and only its manifest and ``raw/<sha256>`` members are read;
    nothing is ever extracted to a path named by the archive.
    """
    stored: dict[str, StoredRaw] = {}
    try:
        with tarfile.open(path, "r|gz") as tar:
            first = tar.next()
            if first is None or first.name != MANIFEST or not first.isfile():
                raise ArchiveError(
                    f"{path} is not a Headroom campaign archive: it does not start with {MANIFEST}"
                )
            if first.size > MAX_MANIFEST_BYTES:
                raise ArchiveError(f"{MANIFEST} is larger than {MAX_MANIFEST_BYTES:,} bytes")
            manifest = _parse_manifest(_read_member(tar, first).read())
            expected = {u.sha256: u for u in manifest.uploads}
            # tar.next(), not iteration: iterating would start again at the manifest.
            while (member := tar.next()) is not None:
                match = _RAW_MEMBER.fullmatch(member.name)
                if not (member.isfile() and match and match.group(1) in expected):
                    raise ArchiveError(f"unexpected member {member.name!r} in {path}")
                sha256 = match.group(1)
                try:
                    raw = rawstore.save(_read_member(tar, member), compress=True)
                except rawstore.TooLarge as exc:
                    raise ArchiveError(
                        f"{member.name}: {exc}; raise HEADROOM_MAX_UPLOAD_SIZE to restore it"
                    ) from None
                if raw.sha256 != sha256 or raw.size != expected[sha256].size:
                    raise ArchiveError(f"{member.name} is damaged: its content does not match its SHA-256")
                stored[sha256] = raw
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise ArchiveError(f"cannot read {path}: {exc}") from None
    absent = [sha for sha in expected if sha not in stored]
    if absent:
        raise ArchiveError(
            f"{len(absent)} upload(s) listed in {MANIFEST} have no raw/ member (first: {absent[0]})"
        )
    return manifest, stored


def _read_member(tar: tarfile.TarFile, member: tarfile.TarInfo) -> IO[bytes]:
    handle = tar.extractfile(member)
    if handle is None:
        raise ArchiveError(f"{member.name} is not a regular file")
    return handle


def _parse_manifest(data: bytes) -> Manifest:
    try:
        return Manifest.model_validate_json(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:5])
        raise ArchiveError(f"{MANIFEST} is not a version-{VERSION} {FORMAT} manifest: {problems}") from None


def import_campaign(path: Path, *, project_slug: str | None = None, slug: str | None = None) -> ImportResult:
    """Restore the archive at ``path`` as a new campaign; its uploads are queued on commit."""
    manifest, stored = read_archive(path)
    target_slug = slug or manifest.campaign.slug
    with transaction.atomic():
        project = _project(manifest, project_slug)
        if Campaign.objects.filter(slug=target_slug).exists():
            raise ArchiveError(f"a campaign {target_slug!r} already exists; choose another with --slug")
        _refuse_colliding_samples(project, manifest.uploads)
        campaign = Campaign.objects.create(
            project=project,
            slug=target_slug,
            name=manifest.campaign.name,
            description=manifest.campaign.description,
            dimensions=manifest.campaign.dimensions,
        )
        for dims in manifest.scenarios:
            Scenario.for_dims(campaign, dims)
        hosts = {entry.name: _host(project, entry) for entry in manifest.hosts}
        for entry in manifest.runs:
            _run(campaign, entry, hosts)
        upload_ids = [_accept(campaign, entry, stored[entry.sha256]) for entry in manifest.uploads]
    return ImportResult(campaign=campaign, upload_ids=upload_ids)


def _project(manifest: Manifest, project_slug: str | None) -> Project:
    if project_slug:
        project, _ = Project.objects.get_or_create(slug=project_slug, defaults={"name": project_slug})
        return project
    source = manifest.campaign.project
    project, _ = Project.objects.get_or_create(slug=source.slug, defaults={"name": source.name})
    return project


def _refuse_colliding_samples(project: Project, uploads: Iterable[UploadEntry]) -> None:
    shas = [u.sha256 for u in uploads]
    clash = (
        Upload.objects.filter(campaign__project=project, sha256__in=shas).select_related("campaign").first()
    )
    if clash is not None:
        raise ArchiveError(
            f"project {project.slug!r} already holds these uploads (campaign {clash.campaign.slug!r}); "
            "their counter samples would collide on the same hosts: import into another project with --project"
        )


def _host(project: Project, entry: HostEntry) -> Host:
    host, _ = Host.objects.get_or_create(
        project=project,
        name=entry.name,
        defaults={"role": entry.role, "os": entry.os, "attributes": entry.attributes},
    )
    return host


def _run(campaign: Campaign, entry: RunEntry, hosts: dict[str, Host]) -> Run:
    run = named_run(campaign, Scenario.for_dims(campaign, entry.scenario), entry.name)
    run.tool = entry.tool
    run.started_at = entry.started_at
    run.ended_at = entry.ended_at
    run.attributes = entry.attributes
    run.save(update_fields=["tool", "started_at", "ended_at", "attributes"])
    run.hosts.set([hosts[name] for name in entry.hosts if name in hosts])
    if entry.steps:
        apply_steps(run, [(s.users, s.started_at, s.ended_at) for s in entry.steps])
    return run


def _accept(campaign: Campaign, entry: UploadEntry, raw: StoredRaw) -> int:
    meta = UploadMeta(
        filename=entry.filename,
        kind=entry.kind,
        scenario=entry.scenario,
        host=entry.host,
        role=entry.role,
        step=entry.step,
        timezone=entry.timezone,
        run=entry.run,
        extra=entry.extra,
    )
    upload, _ = accept(campaign, raw, meta)
    return upload.pk

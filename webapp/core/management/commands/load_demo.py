"""``manage.py load_demo``: the demo campaigns "Folder Redirection 2015" (slug ``demo``) and "Logon load 2015"
(slug ``demo-logon``); ``--campaign SLUG`` loads one of them.

The generator (``webapp.demo.generate``) writes the raw files a tester would
upload; this command feeds them through the same path as the upload API
(raw store -> ``accept`` -> queue -> workers), never a side door. Loading twice
is harmless: identical bytes are recognised as duplicates.
"""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from webapp.core import rawstore
from webapp.core.models import Campaign, Project, ResourceLimit, Upload
from webapp.core.runs import apply_steps
from webapp.core.upload_meta import UploadMeta
from webapp.core.uploads import accept
from webapp.demo.generate import DemoCampaign, demo_campaigns


class Command(BaseCommand):
    help = "Load the demo campaign through the ingest path."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--wait", type=float, default=0, help="seconds to wait for the workers to store it"
        )
        parser.add_argument("--campaign", default="", help="load only the demo campaign with this slug")

    def handle(self, *args: Any, **options: Any) -> None:
        chosen = [demo for demo in demo_campaigns() if options["campaign"] in ("", demo.slug)]
        if not chosen:
            slugs = ", ".join(demo.slug for demo in demo_campaigns())
            raise CommandError(f"no demo campaign {options['campaign']!r}; there are {slugs}")
        ids: list[int] = []
        for demo in chosen:
            ids += self._load(demo)
        if options["wait"]:
            self._wait(ids, options["wait"])

    def _load(self, demo: DemoCampaign) -> list[int]:
        project, _ = Project.objects.get_or_create(slug="demo", defaults={"name": "Demo"})
        campaign, _ = Campaign.objects.get_or_create(
            slug=demo.slug,
            defaults={
                "project": project,
                "name": demo.name,
                "description": demo.description,
                "dimensions": demo.dimensions,
            },
        )
        if campaign.project_id != project.pk:
            raise CommandError(f"campaign {demo.slug!r} already exists in another project")
        added = [d for d in demo.dimensions if d not in (campaign.dimensions or [])]
        if campaign.dimensions and added:  # a demo loaded before a study added a dimension
            campaign.dimensions = [*campaign.dimensions, *added]
            campaign.save(update_fields=["dimensions"])
        if demo.limits:
            ResourceLimit.write_defaults(campaign, demo.limits)
        ids = []
        for item in demo.uploads:
            stored = rawstore.save_bytes(item.content)
            meta = UploadMeta(
                filename=item.filename,
                kind=item.kind,
                scenario=item.scenario,
                host=item.host,
                role=item.role,
                run=item.run,
            )
            upload, _ = accept(campaign, stored, meta)
            ids.append(upload.pk)
            if item.steps and upload.run is not None:
                apply_steps(upload.run, item.steps)
        self.stdout.write(f"demo campaign {campaign.slug!r}: {len(ids)} uploads")
        return ids

    def _wait(self, ids: list[int], seconds: float) -> None:
        deadline = time.monotonic() + seconds
        final = [Upload.Status.STORED, Upload.Status.FAILED]
        while time.monotonic() < deadline:
            pending = Upload.objects.filter(pk__in=ids).exclude(status__in=final).count()
            if pending == 0:
                break
            time.sleep(0.5)
        failed = list(
            Upload.objects.filter(pk__in=ids, status=Upload.Status.FAILED).values_list("pk", "error")
        )
        pending = Upload.objects.filter(pk__in=ids).exclude(status__in=final).count()
        for pk, error in failed:
            self.stderr.write(f"upload {pk} failed: {error}")
        if pending:
            self.stderr.write(f"{pending} demo upload(s) still being processed")
        else:
            self.stdout.write("demo campaign stored")

"""``manage.py export_campaign <slug> <archive.tar.gz>``: a campaign's raw uploads and metadata in one file.

The archive format is described in ``webapp/ops/archive.py``; restore it
with ``import_campaign``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from webapp.core.models import Campaign
from webapp.ops.archive import ArchiveError, export_campaign


class Command(BaseCommand):
    help = "Write a campaign (raw uploads + metadata) to one .tar.gz archive."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="the campaign to export")
        parser.add_argument("archive", type=Path, help="the .tar.gz file to write")

    def handle(self, *args: Any, **options: Any) -> None:
        campaign = Campaign.objects.select_related("project").filter(slug=options["slug"]).first()
        if campaign is None:
            raise CommandError(f"no campaign {options['slug']!r}")
        try:
            summary = export_campaign(campaign, options["archive"])
        except ArchiveError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            f"exported campaign {campaign.slug!r}: {summary.uploads} upload(s), "
            f"{summary.raw_bytes:,} raw bytes -> {summary.path}"
        )

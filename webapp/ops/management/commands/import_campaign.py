"""``manage.py import_campaign <archive> [--project slug] [--slug new-slug] [--sync | --wait S]``.

Restores an ``export_campaign`` archive as a new campaign and re-ingests
every upload through the normal path (raw store, ``accept``, queue). Without
``--sync`` the workers do the parsing; ``--wait`` waits for them, ``--sync``
parses in this process instead (no worker needed).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from webapp.core.models import Upload
from webapp.ops.archive import ArchiveError, import_campaign

FINAL = (Upload.Status.STORED, Upload.Status.FAILED)


class Command(BaseCommand):
    help = "Restore a campaign archive and re-ingest its uploads through the normal pipeline."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("archive", type=Path, help="a file written by export_campaign")
        parser.add_argument(
            "--project", help="project slug to restore into (created if missing; default: the archive's)"
        )
        parser.add_argument("--slug", help="slug of the restored campaign (default: the archive's)")
        how = parser.add_mutually_exclusive_group()
        how.add_argument("--sync", action="store_true", help="parse the uploads in this process")
        how.add_argument(
            "--wait", type=float, default=0, metavar="SECONDS", help="wait this long for the workers"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            result = import_campaign(
                options["archive"], project_slug=options["project"], slug=options["slug"]
            )
        except ArchiveError as exc:
            raise CommandError(str(exc)) from None
        ids = result.upload_ids
        self.stdout.write(
            f"imported campaign {result.campaign.slug!r} into project {result.campaign.project.slug!r}: "
            f"{len(ids)} upload(s) queued"
        )
        if options["sync"]:
            from workers.tasks import ingest_upload

            for upload_id in ids:
                # Skipped (and left to it) if a worker already claimed the upload.
                ingest_upload.apply(args=(upload_id,))
        elif options["wait"]:
            deadline = time.monotonic() + options["wait"]
            while time.monotonic() < deadline and self._pending(ids):
                time.sleep(0.5)
        if options["sync"] or options["wait"]:
            self._report(ids)

    def _pending(self, ids: list[int]) -> int:
        return Upload.objects.filter(pk__in=ids).exclude(status__in=FINAL).count()

    def _report(self, ids: list[int]) -> None:
        uploads = Upload.objects.filter(pk__in=ids)
        stored = uploads.filter(status=Upload.Status.STORED).count()
        for pk, filename, error in uploads.filter(status=Upload.Status.FAILED).values_list(
            "pk", "filename", "error"
        ):
            self.stderr.write(f"upload {pk} ({filename}) failed: {error}")
        pending = self._pending(ids)
        self.stdout.write(
            f"{stored} stored, {len(ids) - stored - pending} failed, {pending} still processing"
        )
        if len(ids) - stored - pending:
            raise CommandError(
                "some uploads failed; see above (they can be retried with `manage.py reparse`)"
            )

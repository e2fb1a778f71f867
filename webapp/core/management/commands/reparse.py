"""``manage.py reparse``: re-run uploads from their raw bytes (after a parser fix)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from webapp.core.models import Upload
from webapp.core.uploads import requeue


class Command(BaseCommand):
    help = "Queue uploads for re-parsing from the raw store; their rows are replaced, never duplicated."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("ids", nargs="*", type=int, help="upload ids")
        parser.add_argument("--campaign", help="every upload of this campaign (slug)")
        parser.add_argument("--failed", action="store_true", help="only uploads that failed")
        parser.add_argument("--parser", help="only uploads this parser handled (or tried)")

    def handle(self, *args: Any, **options: Any) -> None:
        uploads = Upload.objects.all()
        if options["ids"]:
            uploads = uploads.filter(pk__in=options["ids"])
        elif options["campaign"]:
            uploads = uploads.filter(campaign__slug=options["campaign"])
        else:
            raise CommandError("name upload ids or --campaign")
        if options["failed"]:
            uploads = uploads.filter(status=Upload.Status.FAILED)
        if options["parser"]:
            uploads = uploads.filter(parser=options["parser"])
        count = 0
        for upload in uploads.order_by("pk"):
            with transaction.atomic():
                requeue(upload)
            count += 1
        self.stdout.write(f"queued {count} upload(s) for re-parsing")

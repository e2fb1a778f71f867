"""``manage.py create_project <slug> --name N --owner <username> [--password P] [--email E]``.

Makes a project (tenant) and its first owner. An owner who does not exist
yet is created as a user with ``--password``, or with a generated password
printed once.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from webapp.core.creation import Refused, create_project


class Command(BaseCommand):
    help = "Create a project and make a user (created if missing) its owner."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="project slug, e.g. acme-fileservers")
        parser.add_argument("--name", required=True, help="display name")
        parser.add_argument("--owner", required=True, help="user name of the first owner")
        parser.add_argument("--password", help="password for a new owner (default: generated and printed)")
        parser.add_argument("--email", default="", help="e-mail address of a new owner")

    def handle(self, *args: Any, **options: Any) -> None:
        users = get_user_model()
        username = options["owner"].strip()
        if not username:
            raise CommandError("--owner needs a user name")
        owner = users.objects.filter(username=username).first()
        generated = ""
        with transaction.atomic():
            if owner is None:
                password = options["password"] or (generated := secrets.token_urlsafe(12))
                owner = users.objects.create_user(username, email=options["email"], password=password)
            elif options["password"]:
                raise CommandError(f"user {username!r} exists; --password is only for a new owner")
            try:
                project = create_project(slug=options["slug"], name=options["name"], owner=owner)
            except Refused as exc:
                raise CommandError(exc.message) from None
        self.stdout.write(f"project {project.slug!r} created with owner {username!r}")
        if generated:
            self.stdout.write(f"password for {username!r} (shown once): {generated}")

"""``manage.py ensure_demo_user --password P``: the login ``make run`` prints."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser

from webapp.core.models import Membership, Project


class Command(BaseCommand):
    help = "Create or reset the 'demo' user, owner of the demo project (for make run only)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--password", required=True)

    def handle(self, *args: Any, **options: Any) -> None:
        user, _ = get_user_model().objects.get_or_create(username="demo", defaults={"is_staff": True})
        user.set_password(options["password"])
        user.is_staff = True
        user.save()
        for project in Project.objects.filter(slug="demo"):
            Membership.objects.update_or_create(project=project, user=user, defaults={"role": "owner"})

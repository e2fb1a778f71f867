"""``manage.py create_agent_token --project <slug> [--name N]``: print a new agent token once."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from webapp.core.models import AgentToken, Project


class Command(BaseCommand):
    help = "Create an agent token scoped to one project and print it (it is not shown again)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--project", required=True, help="project slug")
        parser.add_argument("--name", default="agent", help="a label to recognise the token by")

    def handle(self, *args: Any, **options: Any) -> None:
        project = Project.objects.filter(slug=options["project"]).first()
        if project is None:
            raise CommandError(f"no project with slug {options['project']!r}")
        token, plain = AgentToken.issue(project, options["name"])
        self.stderr.write(
            f"token {token.name!r} for project {project.slug!r} (store it now; it is not shown again):"
        )
        self.stdout.write(plain)

"""Factories for domain objects (plain functions; every test says what it needs)."""

from __future__ import annotations

import itertools

from django.contrib.auth import get_user_model

from webapp.core.models import AgentToken, Campaign, Membership, Project

_seq = itertools.count(1)


def make_project(slug: str | None = None) -> Project:
    n = next(_seq)
    return Project.objects.create(slug=slug or f"project-{n}", name=f"Project {n}")


def make_campaign(project: Project | None = None, slug: str | None = None) -> Campaign:
    n = next(_seq)
    return Campaign.objects.create(
        project=project or make_project(),
        slug=slug or f"campaign-{n}",
        name=f"Campaign {n}",
        dimensions=["server_os", "smb_dialect", "disk_type", "av"],
    )


def make_token(project: Project, name: str = "agent") -> tuple[AgentToken, str]:
    return AgentToken.issue(project, name)


def make_user(project: Project | None = None, role: str = "viewer", username: str | None = None):
    user = get_user_model().objects.create_user(username or f"user{next(_seq)}", password="pw-for-tests-1")
    if project is not None:
        Membership.objects.create(project=project, user=user, role=role)
    return user

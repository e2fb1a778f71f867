"""Project roles: who may read, who may change, who may manage. One place for the rule."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.http import Http404

from webapp.core.models import Membership, Project

RANK = {Membership.Role.VIEWER: 1, Membership.Role.EDITOR: 2, Membership.Role.OWNER: 3}


def role_in(user: AbstractBaseUser | AnonymousUser, project: Project) -> str | None:
    if not user.is_authenticated:
        return None
    if getattr(user, "is_superuser", False):
        return Membership.Role.OWNER
    membership = Membership.objects.filter(project=project, user_id=int(user.pk or 0)).first()
    return membership.role if membership else None


def project_for(
    user: AbstractBaseUser | AnonymousUser, slug: str, *, at_least: str = Membership.Role.VIEWER
) -> Project:
    """The project if the user holds at least ``at_least`` in it; 404 otherwise (never reveal it exists)."""
    project = Project.objects.filter(slug=slug).first()
    role = role_in(user, project) if project else None
    if project is None or role is None or RANK[Membership.Role(role)] < RANK[Membership.Role(at_least)]:
        raise Http404("project not found")
    return project

"""A project's members, managed by its owners on the dashboard (no admin needed).

Owners add a colleague by user name with a role (viewer, editor, owner). A
colleague without an account is created with a generated password, shown
once (``webapp.accounts.once``), to pass on; names that look alike are one
name (``webapp.accounts.names``). An existing account is added only by
someone who already shares a project with it, or by staff. Owners change
roles and remove members; a project always keeps at least one owner, even
when two owners act at the same moment (the project row is locked).
"""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from webapp.accounts import names, once
from webapp.accounts.roles import project_for
from webapp.core.models import Membership, Project

ROLES = [role for role, _ in Membership.Role.choices]


def _role(request: HttpRequest) -> str | None:
    role = (request.POST.get("role") or "").strip()
    return role if role in ROLES else None


def _locked(project: Project, actor: Any, member_id: int) -> Membership | None:
    """The member to change, with the project's memberships frozen until the transaction ends.

    Locking the project's row serialises every change of its members, so "is
    there another owner?" is still true when the change commits: two owners
    removing or demoting each other at once leave one owner, not none. The
    sender's own right is checked again under the lock (the other request may
    just have removed or demoted them). None when the member is gone.
    """
    Project.objects.select_for_update().filter(pk=project.pk).first()
    project_for(actor, project.slug, at_least=Membership.Role.OWNER)
    return project.memberships.select_related("user").filter(pk=member_id).first()


def _last_owner(membership: Membership) -> bool:
    return (
        membership.role == Membership.Role.OWNER
        and not Membership.objects.filter(project=membership.project, role=Membership.Role.OWNER)
        .exclude(pk=membership.pk)
        .exists()
    )


@login_required
def members(request: HttpRequest, slug: str) -> HttpResponse:
    project = project_for(request.user, slug, at_least=Membership.Role.OWNER)
    context = {
        "project": project,
        "members": project.memberships.select_related("user").order_by("user__username"),
        "roles": ROLES,
        "new_member": once.take_named(request, "password"),
    }
    return once.shown(render(request, "accounts/members.html", context), "password", request.path)


@login_required
@require_POST
def add_member(request: HttpRequest, slug: str) -> HttpResponse:
    """Add a colleague by name: a known account joins, a new name gets an account (password shown once)."""
    project = project_for(request.user, slug, at_least=Membership.Role.OWNER)
    back = redirect("accounts:members", slug=slug)
    role = _role(request)
    if role is None:
        messages.error(request, f"Choose a role: {', '.join(ROLES)}.")
        return back
    try:
        username = names.clean(request.POST.get("username") or "")
    except ValidationError:
        messages.error(
            request, "A user name is 1-150 letters, digits and @ . + - _ (e.g. alice or a.smith@example.com)."
        )
        return back
    user = names.find(username)
    if user is None:
        password = secrets.token_urlsafe(12)
        if _create_member(project, username, password, role):
            # The new account's password is shown once on the next page, like an agent token.
            once.keep(request, back, "password", password, back["Location"], name=username)
            return back
        user = names.find(username)  # made meanwhile by a request like this one
    if user is None or not _known_to(request.user, user):
        messages.error(
            request,
            f"The user name {username} is not available for a new account: choose another. Someone who "
            "already has an account is added by staff or by an owner of a project they are in.",
        )
        return back
    membership, made = Membership.objects.get_or_create(project=project, user=user, defaults={"role": role})
    name = user.get_username()
    if made:
        messages.success(request, f"{name} added as {role}.")
    else:
        messages.error(request, f"{name} is already a member ({membership.role}); change the role below.")
    return back


def _create_member(project: Project, username: str, password: str, role: str) -> bool:
    """A new account and its membership, both or neither; False when the name (or a look-alike) was taken."""
    try:
        with transaction.atomic():
            user = get_user_model().objects.create_user(username, password=password)
            Membership.objects.create(project=project, user=user, role=role)
    except IntegrityError:
        return False
    return True


def _known_to(actor: Any, user: Any) -> bool:
    """Whether ``actor`` may add ``user`` by name: staff, or they already share a project.

    An owner may not pull a stranger's account into their project: that would
    both confirm the account exists and show the project to someone who never
    agreed to it. A name taken by a stranger is answered like any name not
    available for a new account (the one thing a shared name space cannot hide).
    """
    if actor.is_staff or actor.is_superuser:
        return True
    theirs = Membership.objects.filter(user=actor).values("project")
    return Membership.objects.filter(user=user, project__in=theirs).exists()


@login_required
@require_POST
def change_role(request: HttpRequest, slug: str, member_id: int) -> HttpResponse:
    project = project_for(request.user, slug, at_least=Membership.Role.OWNER)
    role = _role(request)
    if role is None:
        messages.error(request, f"Choose a role: {', '.join(ROLES)}.")
        return redirect("accounts:members", slug=slug)
    with transaction.atomic():
        membership = _locked(project, request.user, member_id)
        if membership is None:
            raise Http404("member not found")
        name = membership.user.get_username()
        if role != Membership.Role.OWNER and _last_owner(membership):
            messages.error(request, f"{name} is the project's only owner: make someone else owner first.")
        else:
            membership.role = role
            membership.save(update_fields=["role"])
            messages.success(request, f"{name} is now {role}.")
    return redirect("accounts:members", slug=slug)


@login_required
@require_POST
def remove_member(request: HttpRequest, slug: str, member_id: int) -> HttpResponse:
    project = project_for(request.user, slug, at_least=Membership.Role.OWNER)
    with transaction.atomic():
        membership = _locked(project, request.user, member_id)
        if membership is None:
            raise Http404("member not found")
        name = membership.user.get_username()
        if _last_owner(membership):
            messages.error(
                request, f"{name} is the project's only owner and stays: make someone else owner first."
            )
        else:
            membership.delete()
            messages.success(request, f"{name} removed from {project.name}; their account remains.")
    return redirect("accounts:members", slug=slug)

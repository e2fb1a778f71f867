"""A project's members, managed by its owners on the dashboard (no admin needed).

Owners add a colleague by user name with a role (viewer, editor, owner). A
colleague without an account is created with a generated password, shown
once (``webapp.accounts.once``), to pass on. Owners change roles and remove
members; a project always keeps at least one owner.
"""

from __future__ import annotations

import secrets

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from webapp.accounts import once
from webapp.accounts.roles import project_for
from webapp.core.models import Membership, Project

ROLES = [role for role, _ in Membership.Role.choices]


def _role(request: HttpRequest) -> str | None:
    role = (request.POST.get("role") or "").strip()
    return role if role in ROLES else None


def _last_owner(membership: Membership) -> bool:
    return (
        membership.role == Membership.Role.OWNER
        and not Membership.objects.filter(project=membership.project, role=Membership.Role.OWNER)
        .exclude(pk=membership.pk)
        .exists()
    )


def _member(project: Project, member_id: int) -> Membership:
    membership = project.memberships.select_related("user").filter(pk=member_id).first()
    if membership is None:
        raise Http404("member not found")
    return membership


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
    project = project_for(request.user, slug, at_least=Membership.Role.OWNER)
    back = redirect("accounts:members", slug=slug)
    username = (request.POST.get("username") or "").strip()
    role = _role(request)
    if role is None:
        messages.error(request, f"Choose a role: {', '.join(ROLES)}.")
        return back
    try:
        UnicodeUsernameValidator()(username)
        if not username or len(username) > 150:
            raise ValidationError("length")
    except ValidationError:
        messages.error(
            request, "A user name is 1-150 letters, digits and @ . + - _ (e.g. alice or a.smith@example.com)."
        )
        return back
    users = get_user_model().objects
    with transaction.atomic():
        user = users.filter(username=username).first()
        password = None
        if user is None:
            password = secrets.token_urlsafe(12)
            user = users.create_user(username, password=password)
        membership, made = Membership.objects.get_or_create(
            project=project, user=user, defaults={"role": role}
        )
    if not made:
        messages.error(request, f"{username} is already a member ({membership.role}); change the role below.")
        return back
    if password is None:
        messages.success(request, f"{username} added as {role}.")
        return back
    # The new account's password is shown once on the next page, like an agent token.
    once.keep(request, back, "password", password, back["Location"], name=username)
    return back


@login_required
@require_POST
def change_role(request: HttpRequest, slug: str, member_id: int) -> HttpResponse:
    project = project_for(request.user, slug, at_least=Membership.Role.OWNER)
    membership = _member(project, member_id)
    role = _role(request)
    name = membership.user.get_username()
    if role is None:
        messages.error(request, f"Choose a role: {', '.join(ROLES)}.")
    elif role != Membership.Role.OWNER and _last_owner(membership):
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
    membership = _member(project, member_id)
    name = membership.user.get_username()
    if _last_owner(membership):
        messages.error(
            request, f"{name} is the project's only owner and stays: make someone else owner first."
        )
    else:
        membership.delete()
        messages.success(request, f"{name} removed from {project.name}; their account remains.")
    return redirect("accounts:members", slug=slug)

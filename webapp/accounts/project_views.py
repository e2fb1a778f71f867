"""Creating a project and its first owner from the dashboard (staff only; ``manage.py create_project`` too)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from webapp.core.creation import Refused, create_project


@login_required
@require_POST
def new_project(request: HttpRequest) -> HttpResponse:
    """Make a project; its owner is an existing user (the staff member by default)."""
    if not request.user.is_staff:
        raise PermissionDenied("only staff create projects")
    username = (request.POST.get("owner") or "").strip() or request.user.get_username()
    owner = get_user_model().objects.filter(username=username).first()
    if owner is None:
        messages.error(
            request, f"No user {username!r}: create the user first (manage.py create_project can)."
        )
        return redirect("accounts:projects")
    try:
        project = create_project(
            slug=request.POST.get("slug", ""), name=request.POST.get("name", ""), owner=owner
        )
    except Refused as exc:
        messages.error(request, exc.message)
        return redirect("accounts:projects")
    messages.success(request, f"Project {project.name!r} created; {username} is its owner.")
    return redirect("accounts:projects")

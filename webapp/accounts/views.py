"""Projects and agent tokens pages (sign-in and passwords use Django's own views)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from webapp.accounts.roles import project_for, role_in
from webapp.core.models import AgentToken, Membership, Project


@login_required
def projects(request: HttpRequest) -> HttpResponse:
    if request.user.is_superuser:
        rows = Project.objects.all()
    else:
        rows = Project.objects.filter(memberships__user_id=int(request.user.pk or 0))
    rows = rows.annotate(
        n_campaigns=Count("campaigns", distinct=True), n_members=Count("memberships", distinct=True)
    )
    listing = [(p, role_in(request.user, p)) for p in rows.order_by("name")]
    return render(request, "accounts/projects.html", {"projects": listing})


@login_required
def tokens(request: HttpRequest, slug: str) -> HttpResponse:
    project = project_for(request.user, slug, at_least=Membership.Role.EDITOR)
    context = {
        "project": project,
        "tokens": project.agent_tokens.select_related("created_by"),
        "new_token": request.session.pop("new_token", None),
    }
    return render(request, "accounts/tokens.html", context)


@login_required
@require_POST
def create_token(request: HttpRequest, slug: str) -> HttpResponse:
    project = project_for(request.user, slug, at_least=Membership.Role.EDITOR)
    name = (request.POST.get("name") or "").strip()[:100] or "agent"
    token, plain = AgentToken.issue(project, name, created_by=request.user)
    # Shown once on the next page, then gone: the session entry is popped there.
    request.session["new_token"] = {"name": token.name, "value": plain}
    return redirect("accounts:tokens", slug=slug)


@login_required
@require_POST
def revoke_token(request: HttpRequest, slug: str, token_id: int) -> HttpResponse:
    project = project_for(request.user, slug, at_least=Membership.Role.EDITOR)
    token = project.agent_tokens.filter(pk=token_id).first()
    if token is None:
        from django.http import Http404

        raise Http404("token not found")
    token.revoke()
    messages.success(request, f"Token {token.name!r} revoked; agents using it are refused from now on.")
    return redirect("accounts:tokens", slug=slug)

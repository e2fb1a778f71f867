"""Projects and agent tokens pages; sign-in and passwords use Django's own views.

Sign-in attempts are counted by django-axes (settings: ``AXES_*``), which
shows ``registration/locked_out.html`` to a locked-out pair of user name and
address. Password-reset mails are limited here, per client address and per
e-mail address asked for, so the form cannot be used to flood a mailbox.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from webapp.accounts import once
from webapp.accounts.roles import project_for, role_in
from webapp.api import ratelimit
from webapp.core.models import AgentToken, Membership, Project

RESET_WINDOW_SECONDS = 3600


class ThrottledPasswordResetView(auth_views.PasswordResetView):
    """Django's reset form; past the hourly limits it answers 429 and sends nothing."""

    def form_valid(self, form: Any) -> HttpResponse:
        email = str(form.cleaned_data["email"]).strip().lower()
        address = ratelimit.client_address(self.request)
        wait = ratelimit.hit(
            "reset-address", address, settings.PASSWORD_RESET_PER_ADDRESS, RESET_WINDOW_SECONDS
        ) or ratelimit.hit("reset-account", email, settings.PASSWORD_RESET_PER_ACCOUNT, RESET_WINDOW_SECONDS)
        if wait is None:
            return super().form_valid(form)
        context = self.get_context_data(form=form, retry_minutes=max(1, (wait + 59) // 60))
        response = self.render_to_response(context, status=429)
        response["Retry-After"] = str(wait)
        return response


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
        "new_token": once.take_named(request, "token"),
    }
    return once.shown(render(request, "accounts/tokens.html", context), "token", request.path)


@login_required
@require_POST
def create_token(request: HttpRequest, slug: str) -> HttpResponse:
    project = project_for(request.user, slug, at_least=Membership.Role.EDITOR)
    name = (request.POST.get("name") or "").strip()[:100] or "agent"
    if not name.isprintable():
        messages.error(request, "A token name is printable text: no control characters such as NUL.")
        return redirect("accounts:tokens", slug=slug)
    token, plain = AgentToken.issue(project, name, created_by=request.user)
    # Shown once on the next page; meanwhile neither the session nor the cookie can reveal it.
    response = redirect("accounts:tokens", slug=slug)
    once.keep(request, response, "token", plain, response["Location"], name=token.name)
    return response


@login_required
@require_POST
def revoke_token(request: HttpRequest, slug: str, token_id: int) -> HttpResponse:
    project = project_for(request.user, slug, at_least=Membership.Role.EDITOR)
    token = project.agent_tokens.filter(pk=token_id).first()
    if token is None:
        raise Http404("token not found")
    token.revoke()
    messages.success(request, f"Token {token.name!r} revoked; agents using it are refused from now on.")
    return redirect("accounts:tokens", slug=slug)

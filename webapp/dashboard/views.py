"""Dashboard pages. Every query is scoped to the signed-in user's projects."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.db.models import Count, QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from webapp.core.models import Campaign, Membership, Project, Upload
from webapp.core.uploads import requeue
from webapp.timeseries.models import RollupDirty
from workers.pipeline.load import delete_rows


def visible_projects(request: HttpRequest) -> QuerySet[Project]:
    user = request.user
    if user.is_superuser:
        return Project.objects.all()
    return Project.objects.filter(memberships__user_id=int(user.pk or 0))


def visible_campaign(request: HttpRequest, slug: str) -> Campaign:
    campaign = Campaign.objects.filter(slug=slug, project__in=visible_projects(request)).first()
    if campaign is None:
        raise Http404("campaign not found")
    return campaign


@login_required
def home(request: HttpRequest) -> HttpResponse:
    campaigns = (
        Campaign.objects.filter(project__in=visible_projects(request))
        .select_related("project")
        .annotate(n_scenarios=Count("scenarios", distinct=True), n_uploads=Count("uploads", distinct=True))
    )
    return render(request, "dashboard/home.html", {"campaigns": campaigns})


@login_required
def campaign(request: HttpRequest, slug: str) -> HttpResponse:
    found = visible_campaign(request, slug)
    scenarios = found.scenarios.annotate(n_runs=Count("runs"))
    runs = found.runs.select_related("scenario").annotate(n_steps=Count("steps"))
    return render(
        request, "dashboard/campaign.html", {"campaign": found, "scenarios": scenarios, "runs": runs}
    )


@login_required
def uploads(request: HttpRequest, slug: str) -> HttpResponse:
    found = visible_campaign(request, slug)
    rows = found.uploads.select_related("host", "scenario").order_by("-received_at")[:500]
    return render(request, "dashboard/uploads.html", {"campaign": found, "uploads": rows})


def editable_upload(request: HttpRequest, slug: str, upload_id: int) -> Upload:
    """An upload the user may change: owner or editor of its project (else 404/403)."""
    campaign = visible_campaign(request, slug)
    upload = campaign.uploads.filter(pk=upload_id).first()
    if upload is None:
        raise Http404("upload not found")
    allowed = (
        request.user.is_superuser
        or Membership.objects.filter(
            project=campaign.project,
            user_id=int(request.user.pk or 0),
            role__in=[Membership.Role.OWNER, Membership.Role.EDITOR],
        ).exists()
    )
    if not allowed:
        from django.core.exceptions import PermissionDenied

        raise PermissionDenied("viewers cannot change uploads")
    return upload


@login_required
@require_POST
def reparse_upload(request: HttpRequest, slug: str, upload_id: int) -> HttpResponse:
    """Retry a failed upload, or re-parse a stored one after a parser fix; rows are replaced."""
    upload = editable_upload(request, slug, upload_id)
    with transaction.atomic():
        requeue(upload)
    messages.success(request, f"Upload {upload.pk} queued for re-parsing.")
    return redirect("dashboard:uploads", slug=slug)


@login_required
@require_POST
def delete_upload(request: HttpRequest, slug: str, upload_id: int) -> HttpResponse:
    """Delete an upload and the rows it produced (the raw bytes stay in the raw store)."""
    upload = editable_upload(request, slug, upload_id)
    with transaction.atomic():
        first, last = delete_rows(upload.pk)
        if first and last:
            RollupDirty.objects.create(start=first, end=last)
        upload.delete()
    messages.success(request, f"Upload {upload_id} and its rows deleted.")
    return redirect("dashboard:uploads", slug=slug)

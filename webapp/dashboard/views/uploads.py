"""The uploads page: status, parser, rows and located errors; retry/re-parse and delete for editors."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from webapp.analysis.listings import BadFilter, campaign_uploads
from webapp.core.models import Membership, Upload
from webapp.core.runs import drop_unused, runs_with_results_of
from webapp.core.uploads import requeue
from webapp.dashboard.views.access import campaign_context, visible_campaign
from webapp.timeseries.models import RollupDirty
from workers.pipeline.load import delete_rows
from workers.pipeline.registry import all_parsers

# The page lists this many uploads; GET /api/v1/campaigns/{slug}/uploads pages through all of them.
PAGE_ROWS = 500


@login_required
def uploads(request: HttpRequest, slug: str) -> HttpResponse:
    """The campaign's uploads, newest first; ``?status=`` and ``?kind=`` filter as the API's do."""
    found = visible_campaign(request, slug)
    status, kind = request.GET.get("status", ""), request.GET.get("kind", "")
    try:
        listed = campaign_uploads(found, status, kind)
        problem = ""
    except BadFilter as exc:
        listed, problem = campaign_uploads(found), exc.message
        status = kind = ""
    count = listed.count()
    context = campaign_context(
        found,
        "uploads",
        uploads=listed[:PAGE_ROWS],
        count=count,
        shown=min(count, PAGE_ROWS),
        filters={"status": status.strip(), "kind": kind.strip()},
        statuses=Upload.Status.values,
        kinds=["auto", *sorted(all_parsers())],
        problem=problem,
        api=f"/api/v1/campaigns/{found.slug}/uploads",
    )
    return render(request, "dashboard/uploads.html", context)


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
    """Delete an upload and the rows it produced (the raw bytes stay in the raw store).

    The runs and scenarios it leaves empty go with it (``drop_unused``): no view lists a
    run, or counts one in a scenario, that no upload, result or load step is left in.
    """
    upload = editable_upload(request, slug, upload_id)
    with transaction.atomic():
        runs = runs_with_results_of(upload.pk) | ({upload.run_id} if upload.run_id else set())
        scenario = upload.scenario_id
        span = delete_rows(upload.pk)
        if span:
            RollupDirty.objects.create(start=span[0], end=span[1])
        upload.delete()
        dropped, _ = drop_unused(runs, [scenario] if scenario else [])
    gone = f" {len(dropped)} run{'s' if len(dropped) != 1 else ''} left empty removed." if dropped else ""
    messages.success(request, f"Upload {upload_id} and its rows deleted.{gone}")
    return redirect("dashboard:uploads", slug=slug)

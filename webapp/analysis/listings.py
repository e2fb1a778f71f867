"""What the dashboard's list pages show, for the page and its JSON alike.

The campaign list, a campaign's overview (scenarios and runs), its uploads
(filtered by status and parser) and the runs the trace explorer offers. Each
page renders these querysets and ``GET /api/v1/...`` serialises the same ones
(webapp/api/views_json.py), so the two cannot disagree.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.db.models import Count, Q, QuerySet

from webapp.core.models import Campaign, Host, Project, Run, Scenario, Upload
from webapp.timeseries import samples
from workers.pipeline.registry import all_parsers

# A run's span includes its last moment; sample ranges are half-open.
_JUST_AFTER_END = "r.ended_at + interval '1 microsecond'"


class BadFilter(ValueError):
    """A filter value no upload can have: named to the caller, never silently dropped."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def campaign_list(projects: QuerySet[Project] | Iterable[int]) -> QuerySet[Campaign]:
    """The campaigns of ``projects`` (a queryset or ids), newest first, with scenario and upload counts."""
    return (
        Campaign.objects.filter(project__in=projects)
        .select_related("project", "series")
        .annotate(n_scenarios=Count("scenarios", distinct=True), n_uploads=Count("uploads", distinct=True))
        .order_by("-created_at", "pk")
    )


@dataclass(frozen=True)
class Overview:
    """A campaign page's two tables: scenarios with their run counts, runs with their load-step counts."""

    scenarios: QuerySet[Scenario]
    runs: QuerySet[Run]


def campaign_overview(campaign: Campaign) -> Overview:
    return Overview(
        scenarios=campaign.scenarios.annotate(n_runs=Count("runs")).order_by("pk"),
        runs=campaign.runs.select_related("scenario")
        .prefetch_related("hosts")
        .annotate(n_steps=Count("steps"))
        .order_by("name", "pk"),
    )


def campaign_machines(campaign: Campaign) -> QuerySet[Host]:
    """The machines the campaign's runs ran on, servers first, with their recorded inventory."""
    return Host.objects.filter(runs__campaign=campaign).distinct().order_by("-role", "name")


def check_upload_filters(status: str, kind: str) -> tuple[str, str]:
    """``(status, kind)`` stripped; ``BadFilter`` for a status or parser name that does not exist."""
    status, kind = status.strip(), kind.strip()
    if status and status not in Upload.Status.values:
        known = ", ".join(Upload.Status.values)
        raise BadFilter("invalid_status", f"status must be one of {known}, not {status[:40]!r}")
    if kind and kind != "auto" and kind not in all_parsers():
        known = ", ".join(sorted(all_parsers()))
        raise BadFilter(
            "unknown_kind", f"kind {kind[:40]!r} is not known; expected 'auto' or one of: {known}"
        )
    return status, kind


def campaign_uploads(campaign: Campaign, status: str = "", kind: str = "") -> QuerySet[Upload]:
    """The campaign's uploads, newest first; ``kind`` matches the requested parser or the one that ran (or failed)."""
    status, kind = check_upload_filters(status, kind)
    uploads = campaign.uploads.select_related("campaign", "host", "scenario")
    if status:
        uploads = uploads.filter(status=status)
    if kind:
        uploads = uploads.filter(Q(kind=kind) | Q(parser=kind) | Q(error__parser=kind))
    return uploads.order_by("-received_at", "-pk")


def traced_runs(campaign: Campaign) -> list[Run]:
    """Runs with counter samples of their hosts inside their own time span.

    A host's series hold whatever it recorded in every run: a copy run on a machine
    that was traced in another run has series but nothing to show, and must not be
    the run the explorer opens on.
    """
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT r.id FROM core_run r
            WHERE r.campaign_id = %s AND r.started_at IS NOT NULL AND r.ended_at IS NOT NULL
              AND EXISTS (
                SELECT 1 FROM core_run_hosts rh
                JOIN timeseries_counterseries cs ON cs.host_id = rh.host_id
                WHERE rh.run_id = r.id
                  AND EXISTS (SELECT 1 FROM {samples.of_series("cs.id", "r.started_at", _JUST_AFTER_END)} s))
            """,
            [campaign.pk],
        )
        ids = [row[0] for row in cursor.fetchall()]
    return list(Run.objects.filter(pk__in=ids).select_related("scenario").order_by("started_at", "name"))


@dataclass(frozen=True)
class TraceChoice:
    """The trace explorer's runs, the one it opens (``run`` when it is one of them, else the first) and its steps."""

    runs: list[Run]
    run: Run | None
    steps: list[dict[str, Any]]


def trace_choice(campaign: Campaign, wanted: str = "") -> TraceChoice:
    runs = traced_runs(campaign)
    chosen = next((r for r in runs if str(r.pk) == wanted), runs[0] if runs else None)
    # Load steps (FSCT user counts) are drawn over the traces as shaded bands.
    steps = (
        [
            {
                "users": s.users,
                "start": s.started_at.isoformat(),
                "end": s.ended_at.isoformat() if s.ended_at else None,
            }
            for s in chosen.steps.order_by("started_at")
        ]
        if chosen
        else []
    )
    return TraceChoice(runs, chosen, steps)

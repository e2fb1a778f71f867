"""What a view is built from, and which raw samples retention has removed from it.

Retention (``workers.retention``) deletes the counter samples of uploads
stored more than ``HEADROOM_RETENTION_DAYS`` ago; their one-minute rollups
follow, their results (measurements) and raw bytes stay. Views that read
samples -- capacity, traces, series lists -- attach :func:`data_note`, so a
view that has lost samples says which uploads and since when, instead of
silently showing less or going empty.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import Q

from webapp.core.models import Campaign, Run, Upload

SAMPLES = "raw counter samples and their one-minute rollups"
RESULTS = "stored results (timings and benchmark figures), which retention keeps"


def expired_uploads(*, campaign: Campaign | None = None, run: Run | None = None) -> list[Upload]:
    """Uploads of the campaign (or of the run and its hosts' uploads in its time) whose samples expired."""
    uploads = Upload.objects.filter(raw_expired_at__isnull=False)
    if run is not None:
        uploads = uploads.filter(Q(run=run) | Q(campaign=run.campaign, scenario=run.scenario))
    elif campaign is not None:
        uploads = uploads.filter(campaign=campaign)
    return list(uploads.select_related("run").order_by("raw_expired_at", "pk")[:1000])


def data_note(
    *, campaign: Campaign | None = None, run: Run | None = None, built_from: str = SAMPLES
) -> dict[str, Any]:
    """The ``data`` block of a view's response (and the sentence its page shows)."""
    gone = expired_uploads(campaign=campaign, run=run) if built_from == SAMPLES else []
    note = ""
    if gone:
        runs = sorted({u.run.name for u in gone if u.run is not None})
        first = min(u.raw_expired_at for u in gone if u.raw_expired_at is not None)
        note = (
            f"Raw counter samples of {len(gone)} upload(s)"
            + (f" (runs {', '.join(runs[:5])}{' ...' if len(runs) > 5 else ''})" if runs else "")
            + f" expired from {first:%Y-%m-%d %H:%M} UTC under HEADROOM_RETENTION_DAYS="
            f"{settings.TIMESCALE_RETENTION_DAYS} and are not in this view; their results and raw files are "
            "kept, and re-parsing an upload restores its samples."
        )
    return {
        "built_from": built_from,
        "retention_days": settings.TIMESCALE_RETENTION_DAYS,
        "raw_samples_expired": [
            {"upload": u.pk, "filename": u.filename, "run": u.run_id, "expired_at": u.raw_expired_at}
            for u in gone
        ],
        "note": note,
    }

"""Fixing a failed upload by sending it again with what its error asked for.

An upload's natural key is ``(campaign, sha256)``, so the same bytes again are
a duplicate: the API answers 200 with the existing upload. A *failed* upload
is the exception. Its error usually names what was missing (a ``timezone``
for a robocopy log, a ``kind``, a ``started_at``), and the sender does exactly
that: the same file again with new metadata. Answering with the old failure
would leave no way to fix it short of deleting it, so when the metadata
differs from what the failed upload was stored with, the upload takes the new
metadata and goes back into the queue (the caller answers 202).

The same bytes with the *same* metadata stay a duplicate: parsing them again
would fail again (the uploads page's Retry button re-parses after a parser
fix). Only ``failed`` uploads are reopened: a stored upload keeps its rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from webapp.core import placements
from webapp.core.models import Campaign, Upload

if TYPE_CHECKING:
    from webapp.core.uploads import UploadMeta


def reopen(campaign: Campaign, upload: Upload, meta: UploadMeta) -> bool:
    """Give failed ``upload`` the metadata in ``meta`` and mark it received; True if it was reopened.

    False (nothing changed) when the upload is not failed, when ``meta`` says
    what the upload already holds, or when a concurrent request reopened it
    first: the caller then answers with the existing upload as a duplicate.
    The caller queues a reopened upload once its transaction commits.
    Raises ``RunConflict`` when the named run belongs to another scenario.
    """
    if upload.status != Upload.Status.FAILED:
        return False
    placement = placements.place(campaign, meta)
    wanted: dict[str, object] = {
        "scenario_id": placement.scenario_id,
        "run_id": placement.run_id,
        "host_id": placement.host_id,
        "role": meta.role,
        "step_users": meta.step,
        "timezone": meta.timezone,
        "extra": dict(meta.extra),
        "kind": meta.kind or "auto",
    }
    if all(getattr(upload, name) == value for name, value in wanted.items()):
        return False
    # Conditional on "failed": exactly one of two concurrent re-sends reopens it.
    changed = Upload.objects.filter(pk=upload.pk, status=Upload.Status.FAILED).update(
        **wanted,
        status=Upload.Status.RECEIVED,
        error=None,
        attempts=0,
        claimed_by="",
        queued_at=None,
        started_at=None,
        finished_at=None,
    )
    if changed != 1:
        return False
    upload.refresh_from_db()
    return True

"""Re-filing an upload by sending it again with other metadata.

An upload's natural key is ``(campaign, sha256, host)``, so the same bytes again
from the same machine are a duplicate: the API answers 200 with the existing
upload. New metadata is the exception. A failed upload's error usually names
what was missing (a ``timezone`` for a robocopy log, a ``kind``, a
``started_at``); a stored one may have been sent to the wrong run, load step or
scenario. Either way the sender does the obvious thing: the same file again
with the right metadata. Answering with the old placement would leave no way
to fix it short of deleting it, so when the metadata differs from what the
upload holds, it takes the new metadata and goes back into the queue (the
caller answers 202 with ``refiled: true``); the worker then replaces its rows,
which move to their new runs (one raw copy throughout).

The same bytes with the *same* metadata stay a duplicate (the uploads page's
Retry button re-parses after a parser fix). An upload still in the pipeline
(received, queued, parsing) is not re-filed under its worker: the answer is a
duplicate, and the sender may send again once it has settled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from webapp.core import placements
from webapp.core.models import Campaign, Upload

if TYPE_CHECKING:
    from webapp.core.upload_meta import UploadMeta


SETTLED = (Upload.Status.FAILED, Upload.Status.STORED)


def reopen(campaign: Campaign, upload: Upload, meta: UploadMeta) -> bool:
    """Give settled ``upload`` the metadata in ``meta`` and mark it received; True if it was reopened.

    False (nothing changed) when the upload is still in the pipeline, when
    ``meta`` says what the upload already holds, or when a concurrent request
    reopened it first: the caller then answers with the existing upload as a
    duplicate. The caller queues a reopened upload once its transaction commits.
    Raises ``RunConflict`` when the named run belongs to another scenario.
    """
    if upload.status not in SETTLED:
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
    # Conditional on the status read: exactly one of two concurrent re-sends reopens it.
    changed = Upload.objects.filter(pk=upload.pk, status=upload.status).update(
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

"""``/api/v1/campaigns/{slug}/notes`` and ``/api/v1/notes/{id}``: notes on a campaign, its scenarios and runs.

Members read a campaign's notes; owners and editors (and agent tokens, which
may add data) write and delete them; viewers get 403 and other tenants the
uniform 404. The rules on the text are ``webapp.core.notes``'s.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Router, Schema, Status

from webapp.api.auth import any_auth, caller
from webapp.api.errors import ApiError, not_found
from webapp.api.schemas import ErrorOut
from webapp.api.uploads import campaign_for
from webapp.core.creation import Refused
from webapp.core.models import Note
from webapp.core.notes import add_note, note_dict, notes_of

router = Router(tags=["notes"])


class NoteIn(Schema):
    # One line, at most 500 characters ("AV engine 1.2.3 installed").
    text: str
    # The note's target: the campaign itself (neither given), one of its scenarios or one of its runs (ids).
    scenario: int | None = None
    run: int | None = None


@router.get("/campaigns/{slug}/notes", auth=any_auth, response={200: dict[str, Any], 404: ErrorOut})
def list_notes(request: HttpRequest, slug: str) -> dict[str, Any]:
    """The campaign's notes, oldest first, with their target (campaign, scenario or run)."""
    campaign = campaign_for(request, slug)
    notes = notes_of([campaign])[campaign.pk]
    return {"count": len(notes), "notes": notes}


@router.post(
    "/campaigns/{slug}/notes",
    auth=any_auth,
    response={201: dict[str, Any], 400: ErrorOut, 403: ErrorOut, 404: ErrorOut},
)
def create_note(request: HttpRequest, slug: str, payload: NoteIn) -> Status[dict[str, Any]]:
    """Attach a note to the campaign, or to one of its scenarios or runs (owners, editors, agent tokens)."""
    campaign = campaign_for(request, slug, write=True)
    found = caller(request)
    try:
        note = add_note(
            campaign,
            payload.text,
            scenario=payload.scenario,
            run=payload.run,
            author=request.user if found.user_id else None,
            author_name=f"agent token {found.token.name}" if found.token else "",
        )
    except Refused as exc:
        raise ApiError(exc.status, exc.code, exc.message) from None
    return Status(201, note_dict(note))


@router.delete("/notes/{note_id}", auth=any_auth, response={204: None, 403: ErrorOut, 404: ErrorOut})
def delete_note(request: HttpRequest, note_id: int) -> Status[None]:
    """Remove a note (owners, editors, agent tokens of its project)."""
    found = caller(request)
    note = None
    if 0 < note_id < 2**63:  # beyond a bigint no note exists (and PostgreSQL would refuse the number)
        note = Note.objects.filter(pk=note_id, project_id__in=found.project_ids).first()
    if note is None:
        raise not_found(f"note {note_id}")
    if note.project_id not in found.writable_ids:
        raise ApiError(403, "read_only", "your role in this project is viewer: it can read, not change")
    note.delete()
    return Status(204, None)

"""Notes on a campaign, scenario or run: one set of rules for the API, the dashboard and the share reports.

The text is one line of at most ``MAX_NOTE`` characters under the same rules
as names (``creation.unsafe_character``: no control or text-direction
characters), since notes show on public share pages. A scenario or run must
belong to the note's campaign.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from webapp.core.creation import Refused, unsafe_character
from webapp.core.models import Campaign, Note, Run, Scenario

MAX_NOTE = 500


def check_note_text(text: str) -> str:
    clean = text.strip()
    if not clean or len(clean) > MAX_NOTE:
        raise Refused(400, "invalid_note", f"a note is 1-{MAX_NOTE} characters of text")
    problem = unsafe_character(clean, "a note")
    if problem:
        raise Refused(400, "invalid_note", problem)
    return clean


def add_note(
    campaign: Campaign,
    text: str,
    *,
    scenario: int | None = None,
    run: int | None = None,
    author: Any = None,
    author_name: str = "",
) -> Note:
    """A new note on ``campaign``, or on its scenario or run (ids); ``Refused`` (400) naming what is wrong."""
    clean = check_note_text(text)
    if scenario is not None and run is not None:
        raise Refused(
            400, "invalid_target", "a note is on a campaign, a scenario or a run: name one, not both"
        )
    found_scenario = found_run = None
    if run is not None:
        found_run = Run.objects.filter(campaign=campaign, pk=run).select_related("scenario").first()
        if found_run is None:
            raise Refused(400, "invalid_target", f"run {run} is not a run of campaign {campaign.slug!r}")
    if scenario is not None:
        found_scenario = Scenario.objects.filter(campaign=campaign, pk=scenario).first()
        if found_scenario is None:
            raise Refused(
                400, "invalid_target", f"scenario {scenario} is not a scenario of campaign {campaign.slug!r}"
            )
    target = (
        Note.Target.RUN if found_run else Note.Target.SCENARIO if found_scenario else Note.Target.CAMPAIGN
    )
    return Note.objects.create(
        project_id=campaign.project_id,
        campaign=campaign,
        target=target,
        # A run's note names its scenario too: it shows beside the scenario's row.
        scenario=found_run.scenario if found_run else found_scenario,
        run=found_run,
        text=clean,
        author=author if getattr(author, "is_authenticated", False) else None,
        author_name=author_name[:150],
    )


def note_dict(note: Note) -> dict[str, Any]:
    """What the API, the pages and the share reports show of a note."""
    author = note.author.get_username() if note.author_id else note.author_name  # type: ignore[union-attr]
    return {
        "id": note.pk,
        "campaign": note.campaign.slug,
        "target": note.target,
        "scenario": note.scenario_id,
        "scenario_label": note.scenario.label if note.scenario_id else "",  # type: ignore[union-attr]
        "run": note.run_id,
        "run_name": note.run.name if note.run_id else "",  # type: ignore[union-attr]
        "text": note.text,
        "author": author,
        "created_at": note.created_at,
    }


def notes_of(campaigns: Iterable[Campaign]) -> dict[int, list[dict[str, Any]]]:
    """Campaign id -> its notes (oldest first), in one query."""
    ids = [c.pk for c in campaigns]
    found: dict[int, list[dict[str, Any]]] = {pk: [] for pk in ids}
    for note in Note.objects.filter(campaign_id__in=ids).select_related(
        "campaign", "scenario", "run", "author"
    ):
        found[note.campaign_id].append(note_dict(note))
    return found

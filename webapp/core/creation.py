"""Creating projects and campaigns without the admin: one set of rules for the API, the dashboard and manage.py.

Every refusal is a ``Refused`` with an HTTP status, a code and a sentence the
user can act on; callers turn it into a JSON error, a form error or a
command error.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Iterable
from typing import Any

from django.db import IntegrityError, transaction

from webapp.core.models import Campaign, Membership, Project, Series

SLUG = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$")
# Dimension keys are the scenario's keys (``smb_dialect``, ``technique``): short identifiers.
DIMENSION = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$")
MAX_DIMENSIONS = 32
MAX_NAME = 200
MAX_DESCRIPTION = 10_000
MAX_SERIES_KEY = 100
# Shown on pages (public share pages too) but not C0/C1 controls (category Cc): line and paragraph
# separators, and the bidi embeddings, overrides and isolates that can make "report-final"
# display as something else.
_INVISIBLE = frozenset([0x2028, 0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A)])


class Refused(Exception):
    """A creation the rules do not allow: ``status`` (400/409), ``code`` and ``message``."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def check_slug(text: str, what: str = "campaign") -> str:
    slug = text.strip()
    if not SLUG.match(slug):
        raise Refused(
            400,
            "invalid_slug",
            f"{what} slug {slug!r} must be 1-64 lower-case letters, digits and hyphens, "
            "starting and ending with a letter or digit (e.g. smb-study-2024)",
        )
    return slug


def unsafe_character(text: str, what: str) -> str | None:
    """Why ``text`` (a one-line name or label shown on pages) is refused, naming ``what``; None when fine.

    Refused: control characters (C0, DEL, C1: NUL, ESC, tab, newline...), the
    line and paragraph separators, and bidi embeddings, overrides and isolates
    (U+202A-U+202E, U+2066-U+2069). Right-to-left letters themselves are fine.
    """
    for index, char in enumerate(text):
        if unicodedata.category(char) == "Cc" or ord(char) in _INVISIBLE:
            return (
                f"{what} must not contain control or text-direction characters "
                f"(found U+{ord(char):04X} at character {index + 1}); use plain text"
            )
    return None


def check_name(text: str, what: str = "campaign") -> str:
    name = text.strip()
    if not name or len(name) > MAX_NAME:
        raise Refused(400, "invalid_name", f"{what} name must be 1-{MAX_NAME} characters")
    problem = unsafe_character(name, f"{what} name")
    if problem:
        raise Refused(400, "invalid_name", problem)
    return name


def _unavailable(slug: str) -> str:
    return f"slug {slug!r} is not available; choose another slug"


def check_description(text: str) -> str:
    description = text.strip()
    if len(description) > MAX_DESCRIPTION or "\x00" in description:
        raise Refused(
            400, "invalid_description", f"description must be at most {MAX_DESCRIPTION:,} characters"
        )
    return description


def check_dimensions(values: Iterable[Any]) -> list[str]:
    """The dimension keys in order, each once; refuses non-text, odd characters and repeats.

    Counted before any key is looked at, and repeats found with a set: a body of
    100,000 keys is refused at once, not after a quadratic scan.
    """
    given = list(itertools.islice(values, MAX_DIMENSIONS + 1))
    if len(given) > MAX_DIMENSIONS:
        raise Refused(
            400, "invalid_dimensions", f"more than {MAX_DIMENSIONS} dimensions; at most {MAX_DIMENSIONS}"
        )
    keys: list[str] = []
    seen: set[str] = set()
    for value in given:
        key = value.strip() if isinstance(value, str) else value
        if not isinstance(key, str) or not DIMENSION.match(key):
            raise Refused(
                400,
                "invalid_dimensions",
                f"dimension {str(value)[:80]!r} must be a name of letters, digits and _ . - (e.g. smb_dialect), "
                "at most 64 characters",
            )
        if key in seen:
            raise Refused(400, "invalid_dimensions", f"dimension {key!r} is listed twice")
        seen.add(key)
        keys.append(key)
    return keys


def create_campaign(
    project: Project,
    *,
    slug: str,
    name: str,
    description: str = "",
    dimensions: Iterable[Any] = (),
    series: str = "",
    series_key: str = "",
) -> Campaign:
    """A new campaign in ``project``; ``Refused`` (409) when the slug is taken (slugs are global).

    The answer is the same whether the slug is taken in this project or in
    another tenant's, and names no campaign: slugs are global because every
    URL is ``/campaigns/{slug}``, so "not available" is all a caller may learn.
    ``series`` (a slug) joins the campaign to the project's series of that
    name, made when new, at ``series_key``.
    """
    clean_slug = check_slug(slug)
    values = {
        "name": check_name(name),
        "description": check_description(description),
        "dimensions": check_dimensions(dimensions),
        "series_key": check_series_key(series_key),
    }
    series_slug = check_slug(series, "series") if series.strip() else ""
    try:
        with transaction.atomic():
            joined = series_for(project, series_slug) if series_slug else None
            return Campaign.objects.create(project=project, slug=clean_slug, series=joined, **values)
    except IntegrityError:
        raise Refused(409, "slug_taken", _unavailable(clean_slug)) from None


def check_series_key(text: str) -> str:
    key = text.strip()
    problem = unsafe_character(key, "series_key")
    if len(key) > MAX_SERIES_KEY or problem:
        raise Refused(
            400, "invalid_series_key", problem or f"series_key must be at most {MAX_SERIES_KEY} characters"
        )
    return key


def series_for(project: Project, slug: str) -> Series:
    """The project's series ``slug``, made when new; ``Refused`` (409) when another project holds the slug."""
    found, _ = Series.objects.get_or_create(slug=slug, defaults={"project": project, "name": slug})
    if found.project_id != project.pk:
        raise Refused(409, "series_taken", f"series slug {slug!r} is not available; choose another slug")
    return found


def update_campaign(
    campaign: Campaign,
    *,
    name: str,
    description: str,
    dimensions: Iterable[Any],
    series: str | None = None,
    series_key: str | None = None,
) -> None:
    """Rename a campaign and change its description and dimensions (the slug stays: links use it).

    ``series`` (a slug, made when new, the rules of ``create_campaign``; ``""``
    leaves any series) and ``series_key`` change only when given. A series
    the campaign leaves no longer pins it as its baseline.
    """
    campaign.name = check_name(name)
    campaign.description = check_description(description)
    campaign.dimensions = check_dimensions(dimensions)
    fields = ["name", "description", "dimensions"]
    if series_key is not None:
        campaign.series_key = check_series_key(series_key)
        fields.append("series_key")
    with transaction.atomic():
        if series is not None:
            slug = check_slug(series, "series") if series.strip() else ""
            joined = series_for(campaign.project, slug) if slug else None
            left = Series.objects.filter(baseline=campaign)
            (left.exclude(pk=joined.pk) if joined else left).update(baseline=None)
            campaign.series = joined
            fields.append("series")
        campaign.save(update_fields=fields)


def pin_baseline(series: Series, campaign_slug: str) -> None:
    """Compare every campaign of ``series`` with ``campaign_slug``; ``""``: each with the one before it."""
    wanted = campaign_slug.strip()
    if wanted:
        baseline = series.campaigns.filter(slug=wanted).first()
        if baseline is None:
            known = ", ".join(series.campaigns.order_by("slug").values_list("slug", flat=True)) or "none yet"
            raise Refused(
                400, "invalid_baseline", f"{wanted[:64]!r} is not a campaign of this series ({known})"
            )
        series.baseline = baseline
    else:
        series.baseline = None
    series.save(update_fields=["baseline"])


def create_project(*, slug: str, name: str, owner: Any) -> Project:
    """A new project with ``owner`` (a user) as its first owner; ``Refused`` (409) when the slug is taken."""
    clean_slug = check_slug(slug, "project")
    clean_name = check_name(name, "project")
    try:
        with transaction.atomic():
            project = Project.objects.create(slug=clean_slug, name=clean_name)
            Membership.objects.create(project=project, user=owner, role=Membership.Role.OWNER)
    except IntegrityError:
        # Only staff make projects, and they see them all: saying it exists reveals nothing.
        raise Refused(
            409, "slug_taken", f"a project with slug {clean_slug!r} already exists; choose another slug"
        ) from None
    return project

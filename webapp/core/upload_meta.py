"""What the sender says about an upload (``UploadMeta``), checked to fit its columns when made.

Its own module so that ``placements`` and ``resubmit``, which ``uploads``
calls, read the metadata without importing ``uploads`` back.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field

from webapp.core.models import Campaign, Host, Scenario
from webapp.core.models.campaigns import DIMENSIONS, normalise_dims

# Scenario dimensions beyond the named columns live in a JSON object: bound them too.
MAX_EXTRA_DIMENSIONS = 32
MAX_DIMENSION_NAME = 64
MAX_EXTRA_VALUE = 200
# Upload.step_users and RunStep.users are PostgreSQL integers.
MAX_USERS = 2**31 - 1


class InvalidMeta(ValueError):
    """A field the sender gave cannot be stored; ``code`` names the field for the API's 400."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def check_text(field_name: str, value: str, max_length: int) -> str:
    """``value`` if PostgreSQL can store it in a column of ``max_length`` characters."""
    if "\x00" in value:
        raise InvalidMeta(f"invalid_{field_name}", f"{field_name} must not contain NUL (0x00) characters")
    if len(value) > max_length:
        raise InvalidMeta(
            f"invalid_{field_name}", f"{field_name} is {len(value):,} characters; at most {max_length} fit"
        )
    return value


def check_scenario(dims: Mapping[str, object]) -> Mapping[str, object]:
    """Scenario dimensions that fit their columns: names and values text (or numbers), no NUL."""
    extras = 0
    for name, value in dims.items():
        if not isinstance(name, str) or not isinstance(value, str | int | float):
            raise InvalidMeta(
                "invalid_scenario", 'scenario must be a JSON object of strings, e.g. {"av": "on"}'
            )
        key = name.strip()
        check_text("scenario", key, MAX_DIMENSION_NAME)
        if key in DIMENSIONS:
            column = Scenario._meta.get_field(key)
            limit = getattr(column, "max_length", None) or MAX_EXTRA_VALUE
        else:
            extras += 1
            limit = MAX_EXTRA_VALUE
        text = str(value).strip()
        if "\x00" in text or len(text) > limit:
            raise InvalidMeta(
                "invalid_scenario",
                f"scenario value of {key!r} must be at most {limit} characters, without NUL characters",
            )
    if extras > MAX_EXTRA_DIMENSIONS:
        raise InvalidMeta(
            "invalid_scenario", f"scenario has {extras} extra dimensions; at most {MAX_EXTRA_DIMENSIONS}"
        )
    return dims


def check_declared(campaign: Campaign, dims: Mapping[str, object]) -> None:
    """Refuse a scenario dimension the campaign does not declare (a typo would make a new scenario).

    A campaign that declares no dimensions takes any: its scenarios are free-form.
    """
    declared = list(campaign.dimensions or [])
    if not declared:
        return
    for key in normalise_dims(dims):
        if key in declared:
            continue
        lower = {name.lower(): name for name in declared}
        close = difflib.get_close_matches(key.lower(), list(lower), n=1, cutoff=0.6)
        hint = f" Did you mean {lower[close[0]]!r}?" if close else ""
        raise InvalidMeta(
            "unknown_dimension",
            f"scenario dimension {key[:MAX_DIMENSION_NAME]!r} is not one of campaign {campaign.slug!r}'s"
            f" dimensions ({', '.join(declared)}).{hint} Fix the name, or add the dimension to the"
            " campaign first.",
        )


@dataclass(frozen=True)
class UploadMeta:
    """What the sender told us about a file (SPEC: POST /api/v1/uploads).

    Checked when made: every field fits its column, so a hostile value is an
    ``InvalidMeta`` (a 400 in the API) and never a database error.
    """

    filename: str = ""
    kind: str = "auto"
    scenario: Mapping[str, object] = field(default_factory=dict)
    host: str = ""
    role: str = Host.Role.CLIENT
    step: int | None = None
    timezone: str = ""
    run: str = ""
    extra: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_text("host", self.host, 255)
        check_text("run", self.run, 200)
        check_text("timezone", self.timezone, 64)
        check_text("kind", self.kind, 32)
        check_text("filename", self.filename, 10_000)
        check_scenario(self.scenario)
        for value in self.extra.values():
            check_text("metadata", value, 1_000)
        if self.step is not None and not 0 <= self.step <= MAX_USERS:
            raise InvalidMeta("invalid_step", f"step must be a user count from 0 to {MAX_USERS:,}")

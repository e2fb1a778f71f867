"""User names that look alike are one name: one account per look, enforced by the database.

``Demo``, ``demo`` in fullwidth letters and ``demo`` with a Cyrillic ``d`` read as ``demo``
on a members page or a sign-in form, so they must not be three accounts. Each
name has a *key*: NFKC-normalised (as Django's ``normalize_username`` does;
fullwidth, ligatures and mathematical letters fold to plain ones), common
Cyrillic and Greek look-alikes mapped to the Latin letter they imitate, then
lower-cased. ``auth_user`` has a unique index on the key (migration
``core.0006_user_name_key``), so two requests creating look-alike names at
the same moment cannot both succeed, whichever path creates the account
(members page, ``manage.py``, the admin).

Why an explicit map, not Unicode's full confusables table (UTS #39): the table
has thousands of entries, changes with Unicode versions and would have to live
in the database as well; the letters that make a Latin user name look right
are few, and are listed in ``LOOKALIKES``. Within-Latin look-alikes (``l``,
``I``, ``1``) are left alone: folding them would make ``ian`` and ``lan`` one
name. The map is written once, in the database function ``user_name_key``;
lookups call that same function (``UserNameKey``), so the index and the
lookups cannot disagree. Changing the map means a new migration that
replaces the function and rebuilds the index.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.db import models

MAX_LENGTH = 150

# Look-alike letters (before lower-casing, so capitals too) and the Latin letter each imitates,
# written as escapes so a reader sees which is which.
_LOOKALIKE_LETTERS = (
    # Cyrillic
    (
        "\u0410\u0412\u0415\u041a\u041c\u041d\u041e\u0420\u0421\u0422\u0423\u0425\u0405\u0406",
        "abekmhopctyxsi",
    ),
    (
        "\u0408\u051a\u051c\u04ae\u0430\u0435\u043e\u0440\u0441\u0443\u0445\u0455\u0456\u0458",
        "jqwyaeopcyxsij",
    ),
    ("\u0501\u051b\u051d\u04bb\u04cf\u04af", "dqwhly"),
    # Greek
    (
        "\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7",
        "abezhikmnoptyx",
    ),
    ("\u03b1\u03bf\u03bd\u03b9\u03ba\u03c1\u03c5", "aovikpu"),
    # Latin without dot
    ("\u0131\u0237", "ij"),
)
LOOKALIKES = {k: v for source, target in _LOOKALIKE_LETTERS for k, v in zip(source, target, strict=True)}


def key_function_sql() -> str:
    """``CREATE FUNCTION user_name_key``: the one definition of a name's key (see the module docstring)."""
    source = "".join(LOOKALIKES)
    target = "".join(LOOKALIKES.values())
    return (
        "CREATE OR REPLACE FUNCTION user_name_key(name text) RETURNS text "
        "LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE "
        f"AS $$SELECT lower(translate(normalize(name, NFKC), '{source}', '{target}'))$$"
    )


class UserNameKey(models.Func):
    """The key of a user name, computed by the database (the function the unique index uses)."""

    function = "user_name_key"
    output_field = models.CharField()


def clean(text: str) -> str:
    """The user name as it will be stored (NFKC, like ``create_user``); ``ValidationError`` when not allowed.

    Normalised before it is checked, so what is checked is what is stored:
    ``demo`` in fullwidth letters is the name ``demo``.
    """
    name = get_user_model().normalize_username(text.strip())
    if not name or len(name) > MAX_LENGTH:
        raise ValidationError("length")
    UnicodeUsernameValidator()(name)
    return name


def find(name: str) -> Any:
    """The account whose name looks like ``name`` (same key), or None."""
    users = get_user_model().objects
    found: AbstractBaseUser | None = (
        users.alias(key=UserNameKey("username")).filter(key=UserNameKey(models.Value(name))).first()
    )
    return found

"""The settings helpers fail loudly, naming the variable and what was expected."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from webapp.env import env_bool, env_choice, env_int, env_list, env_secret, env_size


def test_it_reads_booleans_in_the_usual_spellings():
    assert env_bool("X", False, {"X": "yes"}) is True
    assert env_bool("X", True, {"X": "0"}) is False
    assert env_bool("X", True, {}) is True


def test_it_rejects_a_boolean_it_cannot_read():
    with pytest.raises(ImproperlyConfigured, match=r"DEBUG='maybe' is not a boolean"):
        env_bool("DEBUG", False, {"DEBUG": "maybe"})


def test_it_rejects_a_non_integer_and_one_below_the_minimum():
    with pytest.raises(ImproperlyConfigured, match="N='12x' is not a whole number"):
        env_int("N", 1, {"N": "12x"})
    with pytest.raises(ImproperlyConfigured, match="N=0 is below the minimum of 1"):
        env_int("N", 1, {"N": "0"}, minimum=1)
    assert env_int("N", 7, {"N": " 42 "}) == 42


def test_it_reads_sizes_with_units_and_rejects_nonsense():
    assert env_size("S", 0, {"S": "512k"}) == 512 * 1024
    assert env_size("S", 0, {"S": "200MB"}) == 200 * 1024**2
    assert env_size("S", 0, {"S": "2g"}) == 2 * 1024**3
    assert env_size("S", 5, {}) == 5
    with pytest.raises(ImproperlyConfigured, match="S='2 terabytes' is not a size"):
        env_size("S", 0, {"S": "2 terabytes"})


def test_it_splits_lists_and_drops_blanks():
    assert env_list("H", ["x"], {"H": "a.example, b.example,,"}) == ["a.example", "b.example"]
    assert env_list("H", ["x"], {}) == ["x"]


def test_it_accepts_only_listed_choices():
    assert env_choice("M", "auto", ("auto", "on", "off"), {"M": "ON"}) == "on"
    with pytest.raises(ImproperlyConfigured, match="expected one of auto, on, off"):
        env_choice("M", "auto", ("auto", "on", "off"), {"M": "sometimes"})


def test_it_reads_a_secret_from_a_file(tmp_path):
    secret = tmp_path / "key"
    secret.write_text("s3cret\n")
    assert env_secret("SECRET_KEY", None, {"SECRET_KEY_FILE": str(secret)}) == "s3cret"
    assert env_secret("SECRET_KEY", None, {"SECRET_KEY": "direct"}) == "direct"


def test_it_fails_when_a_required_secret_is_missing_or_unreadable(tmp_path):
    with pytest.raises(ImproperlyConfigured, match="SECRET_KEY must be set"):
        env_secret("SECRET_KEY", None, {})
    with pytest.raises(ImproperlyConfigured, match="cannot be read"):
        env_secret("SECRET_KEY", None, {"SECRET_KEY_FILE": str(tmp_path / "missing")})

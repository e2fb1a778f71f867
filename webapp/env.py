"""Typed readers for environment variables that fail loudly on bad values.

Settings come from the environment only (twelve-factor). Each helper raises
``ImproperlyConfigured`` naming the variable and what was expected, so a typo
in a deployment stops the process at start-up instead of misbehaving later.
``env_secret`` honours ``NAME_FILE`` (Docker/Kubernetes secrets).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}
_SIZE_UNITS = {"": 1, "b": 1, "k": 1024, "kb": 1024, "m": 1024**2, "mb": 1024**2, "g": 1024**3, "gb": 1024**3}


def _raw(name: str, environ: Mapping[str, str] | None) -> str | None:
    return (os.environ if environ is None else environ).get(name)


def env_str(name: str, default: str, environ: Mapping[str, str] | None = None) -> str:
    value = _raw(name, environ)
    return default if value is None else value


def env_bool(name: str, default: bool, environ: Mapping[str, str] | None = None) -> bool:
    value = _raw(name, environ)
    if value is None:
        return default
    lowered = value.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ImproperlyConfigured(
        f"{name}={value!r} is not a boolean; expected one of 1/0, true/false, yes/no, on/off"
    )


def env_int(
    name: str,
    default: int,
    environ: Mapping[str, str] | None = None,
    *,
    minimum: int | None = None,
) -> int:
    value = _raw(name, environ)
    if value is None or value.strip() == "":
        return default
    try:
        number = int(value.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not a whole number") from None
    if minimum is not None and number < minimum:
        raise ImproperlyConfigured(f"{name}={number} is below the minimum of {minimum}")
    return number


def env_size(name: str, default: int, environ: Mapping[str, str] | None = None) -> int:
    """A byte size: ``1048576``, ``512k``, ``200MB``, ``2g``."""
    value = _raw(name, environ)
    if value is None or value.strip() == "":
        return default
    text = value.strip().lower()
    digits = text.rstrip("kmgb")
    unit = text[len(digits) :]
    if not digits.isdigit() or unit not in _SIZE_UNITS:
        raise ImproperlyConfigured(f"{name}={value!r} is not a size; expected e.g. 1048576, 512k, 200MB, 2g")
    return int(digits) * _SIZE_UNITS[unit]


def env_list(name: str, default: list[str], environ: Mapping[str, str] | None = None) -> list[str]:
    """A comma-separated list; blanks are dropped."""
    value = _raw(name, environ)
    if value is None:
        return list(default)
    return [item.strip() for item in value.split(",") if item.strip()]


def env_choice(
    name: str, default: str, choices: tuple[str, ...], environ: Mapping[str, str] | None = None
) -> str:
    value = env_str(name, default, environ).strip().lower()
    if value not in choices:
        raise ImproperlyConfigured(f"{name}={value!r} is not valid; expected one of {', '.join(choices)}")
    return value


def env_secret(name: str, default: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """A secret from ``NAME`` or from the file named by ``NAME_FILE``."""
    path = _raw(f"{name}_FILE", environ)
    if path:
        try:
            with open(path, encoding="utf-8") as handle:
                return handle.read().strip()
        except OSError as exc:
            raise ImproperlyConfigured(f"{name}_FILE={path!r} cannot be read: {exc.strerror}") from None
    value = _raw(name, environ)
    if value:
        return value
    if default is None:
        raise ImproperlyConfigured(f"{name} must be set (or {name}_FILE naming a file that holds it)")
    return default

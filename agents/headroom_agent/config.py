"""Where the agent keeps its settings and data, and how flags, env vars and the file combine.

Precedence, highest first: command-line flags, environment variables
(``HEADROOM_SERVER``, ``HEADROOM_TOKEN``, ``HEADROOM_CAMPAIGN``,
``HEADROOM_SPOOL_DIR``), the config file written by ``headroom-agent
configure``, built-in defaults.

The config file is JSON in the user's config directory (``%APPDATA%\\headroom``
on Windows, ``~/Library/Application Support/headroom`` on macOS,
``$XDG_CONFIG_HOME/headroom`` or ``~/.config/headroom`` elsewhere), or
wherever ``HEADROOM_CONFIG`` points. The spool and the ``watch`` state files
live in the data directory (``%LOCALAPPDATA%\\headroom``, ``~/Library/
Application Support/headroom``, ``$XDG_STATE_HOME/headroom`` or
``~/.local/state/headroom``; ``HEADROOM_DATA_DIR`` overrides it): never in a
temporary directory, so the spool survives a reboot.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

APP = "headroom"
CONFIG_NAME = "agent.json"
ENV_CONFIG = "HEADROOM_CONFIG"
ENV_DATA_DIR = "HEADROOM_DATA_DIR"
# Settings that an environment variable may set, and its name.
ENV_SETTINGS = {
    "server": "HEADROOM_SERVER",
    "token": "HEADROOM_TOKEN",
    "campaign": "HEADROOM_CAMPAIGN",
    "spool_dir": "HEADROOM_SPOOL_DIR",
}
# What ``configure`` may store in the file.
FILE_KEYS = ("server", "token", "campaign", "host", "role", "scenario", "spool_dir")
ROLES = ("client", "server")
DEFAULT_TIMEOUT = 60.0


class ConfigError(Exception):
    """A setting is missing or malformed; the message says how to fix it."""


def _home_dir(windows_var: str, xdg_var: str, xdg_default: str) -> Path:
    if sys.platform == "win32":
        base = os.environ.get(windows_var)
        if base:
            return Path(base) / APP
        return Path.home() / "AppData" / ("Roaming" if windows_var == "APPDATA" else "Local") / APP
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / APP
    return Path(os.environ.get(xdg_var) or Path.home() / xdg_default) / APP


def config_path() -> Path:
    """The config file: ``HEADROOM_CONFIG`` or ``agent.json`` in the user's config dir."""
    explicit = os.environ.get(ENV_CONFIG)
    if explicit:
        return Path(explicit)
    return _home_dir("APPDATA", "XDG_CONFIG_HOME", ".config") / CONFIG_NAME


def data_dir() -> Path:
    """Where the spool and watch state live by default (persistent, per user)."""
    explicit = os.environ.get(ENV_DATA_DIR)
    if explicit:
        return Path(explicit)
    return _home_dir("LOCALAPPDATA", "XDG_STATE_HOME", os.path.join(".local", "state"))


def load_file(path: Path) -> dict[str, Any]:
    """The stored settings, or ``{}`` if there is no config file yet."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"cannot read the config file {path}: {exc.strerror or exc}") from None
    try:
        values = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"the config file {path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            "fix it or delete it and run `headroom-agent configure` again"
        ) from None
    if not isinstance(values, dict):
        raise ConfigError(f"the config file {path} must hold a JSON object")
    return values


def save_file(path: Path, values: Mapping[str, Any]) -> None:
    """Write the settings atomically, readable by the owner only (it holds the token)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0)
    fd = os.open(temporary, flags, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(json.dumps(dict(values), indent=2, sort_keys=True).encode("utf-8") + b"\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def normalise_server(url: str) -> str:
    """``https://host[:port][/prefix]`` without a trailing slash, or ConfigError."""
    url = url.strip().rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(
            f"server must be an http:// or https:// URL such as https://headroom.example, not {url!r}"
        )
    if parts.query or parts.fragment:
        raise ConfigError(f"server URL must not have a query or fragment: {url!r}")
    if parts.path.rstrip("/").endswith("/api/v1"):
        url = url[: -len("/api/v1")]
    return url


def is_plain_http_remote(server: str) -> bool:
    """True for ``http://`` to anything but this machine: the token would travel in clear text."""
    parts = urlsplit(server)
    return parts.scheme == "http" and (parts.hostname or "") not in ("localhost", "127.0.0.1", "::1")


def parse_pairs(items: Iterable[str], what: str = "scenario") -> dict[str, str]:
    """``["av=on", "disk_type=ssd"]`` -> ``{"av": "on", "disk_type": "ssd"}``."""
    pairs: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(
                f"--{what} expects key=value, got {item!r} (put FILE arguments before --{what})"
            )
        pairs[key.strip()] = value.strip()
    return pairs


def mask(token: str) -> str:
    """Enough of a token to recognise it, never enough to use it."""
    if not token:
        return "(not set)"
    return token[:10] + "..." if len(token) > 14 else "***"


@dataclass(frozen=True)
class Settings:
    """The effective settings of one command."""

    server: str
    token: str
    campaign: str
    host: str
    role: str
    scenario: dict[str, str]
    spool_dir: Path
    data_dir: Path
    config_path: Path
    timeout: float = DEFAULT_TIMEOUT
    sources: dict[str, str] = field(default_factory=dict)

    def require_server(self) -> None:
        """Raise ConfigError unless a server and a token are known."""
        if not self.server:
            raise ConfigError(
                "no server configured: run `headroom-agent configure --server URL --token TOKEN` "
                "or set HEADROOM_SERVER"
            )
        if not self.token:
            raise ConfigError(
                f"no agent token configured for {self.server}: run `headroom-agent configure --token TOKEN` "
                "or set HEADROOM_TOKEN"
            )

    def require_campaign(self) -> str:
        """The campaign slug, or ConfigError saying how to give one."""
        if not self.campaign:
            raise ConfigError(
                "no campaign: pass --campaign SLUG or store a default with `headroom-agent configure --campaign SLUG`"
            )
        return self.campaign


def resolve(flags: Mapping[str, Any]) -> Settings:
    """Combine flags (``None`` = not given), environment and config file into Settings."""
    path = Path(flags["config"]) if flags.get("config") else config_path()
    stored = load_file(path)
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for key in FILE_KEYS:
        if key in stored and stored[key] not in (None, ""):
            values[key], sources[key] = stored[key], f"config file {path}"
    for key, variable in ENV_SETTINGS.items():
        if os.environ.get(variable):
            values[key], sources[key] = os.environ[variable], f"environment ({variable})"
    for key in FILE_KEYS:
        if flags.get(key) not in (None, ""):
            values[key], sources[key] = flags[key], "command line"

    server = normalise_server(str(values["server"])) if values.get("server") else ""
    role = str(values.get("role") or "client")
    if role not in ROLES:
        raise ConfigError(f"role must be 'client' or 'server', not {role!r}")
    scenario_value = values.get("scenario") or {}
    if not isinstance(scenario_value, dict):
        raise ConfigError(f"the stored scenario must be a JSON object, not {scenario_value!r}")
    scenario = {str(k): str(v) for k, v in scenario_value.items()}
    if isinstance(flags.get("scenario_flags"), dict):
        scenario.update(flags["scenario_flags"])
    data = data_dir()
    spool = Path(values["spool_dir"]) if values.get("spool_dir") else data / "spool"
    timeout = float(flags.get("timeout") or DEFAULT_TIMEOUT)
    return Settings(
        server=server,
        token=str(values.get("token") or "").strip(),
        campaign=str(values.get("campaign") or "").strip(),
        host=str(values.get("host") or "").strip() or default_host(),
        role=role,
        scenario=scenario,
        spool_dir=spool,
        data_dir=data,
        config_path=path,
        timeout=timeout,
        sources=sources,
    )


def default_host() -> str:
    """This machine's name as perfmon writes it (``COMPUTERNAME`` on Windows)."""
    return os.environ.get("COMPUTERNAME") or socket.gethostname().split(".")[0] or "localhost"

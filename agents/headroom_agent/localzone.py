"""This machine's time zone as an IANA name, sent with every upload unless ``--timezone`` says otherwise.

Robocopy logs, perfmon CSVs without a bias, FSCT and timing files hold local
wall-clock times without an offset; the server needs the zone of the machine
that wrote them to turn them into UTC. An upload made from that machine
therefore sends its zone by default, so it needs no flag.

Windows names its zones differently ("W. Europe Standard Time"); ``WINDOWS``
maps the common ones to the IANA name CLDR gives for their main territory.
Windows: the registry's ``TimeZoneKeyName``, else ``tzutil /g``. POSIX: ``TZ``,
else where ``/etc/localtime`` points, else ``/etc/timezone``. A zone that
cannot be named is sent as nothing (the server then asks for ``timezone``
where a file needs one) -- never a guess.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

# Windows zone id -> IANA zone (CLDR windowsZones.xml, territory "001").
WINDOWS: dict[str, str] = {
    "Dateline Standard Time": "Etc/GMT+12",
    "UTC-11": "Etc/GMT+11",
    "Hawaiian Standard Time": "Pacific/Honolulu",
    "Alaskan Standard Time": "America/Anchorage",
    "Pacific Standard Time (Mexico)": "America/Tijuana",
    "Pacific Standard Time": "America/Los_Angeles",
    "US Mountain Standard Time": "America/Phoenix",
    "Mountain Standard Time (Mexico)": "America/Mazatlan",
    "Mountain Standard Time": "America/Denver",
    "Central America Standard Time": "America/Guatemala",
    "Central Standard Time": "America/Chicago",
    "Central Standard Time (Mexico)": "America/Mexico_City",
    "Canada Central Standard Time": "America/Regina",
    "SA Pacific Standard Time": "America/Bogota",
    "Eastern Standard Time": "America/New_York",
    "US Eastern Standard Time": "America/Indiana/Indianapolis",
    "Venezuela Standard Time": "America/Caracas",
    "Paraguay Standard Time": "America/Asuncion",
    "Atlantic Standard Time": "America/Halifax",
    "SA Western Standard Time": "America/La_Paz",
    "Pacific SA Standard Time": "America/Santiago",
    "Newfoundland Standard Time": "America/St_Johns",
    "E. South America Standard Time": "America/Sao_Paulo",
    "Argentina Standard Time": "America/Argentina/Buenos_Aires",
    "SA Eastern Standard Time": "America/Cayenne",
    "Montevideo Standard Time": "America/Montevideo",
    "UTC-02": "Etc/GMT+2",
    "Azores Standard Time": "Atlantic/Azores",
    "Cape Verde Standard Time": "Atlantic/Cape_Verde",
    "UTC": "Etc/UTC",
    "GMT Standard Time": "Europe/London",
    "Greenwich Standard Time": "Atlantic/Reykjavik",
    "Morocco Standard Time": "Africa/Casablanca",
    "W. Europe Standard Time": "Europe/Berlin",
    "Central Europe Standard Time": "Europe/Budapest",
    "Romance Standard Time": "Europe/Paris",
    "Central European Standard Time": "Europe/Warsaw",
    "W. Central Africa Standard Time": "Africa/Lagos",
    "Namibia Standard Time": "Africa/Windhoek",
    "GTB Standard Time": "Europe/Bucharest",
    "E. Europe Standard Time": "Europe/Chisinau",
    "FLE Standard Time": "Europe/Kiev",
    "Egypt Standard Time": "Africa/Cairo",
    "Israel Standard Time": "Asia/Jerusalem",
    "Jordan Standard Time": "Asia/Amman",
    "Middle East Standard Time": "Asia/Beirut",
    "Syria Standard Time": "Asia/Damascus",
    "South Africa Standard Time": "Africa/Johannesburg",
    "Kaliningrad Standard Time": "Europe/Kaliningrad",
    "Turkey Standard Time": "Europe/Istanbul",
    "Belarus Standard Time": "Europe/Minsk",
    "Russian Standard Time": "Europe/Moscow",
    "Arab Standard Time": "Asia/Riyadh",
    "Arabic Standard Time": "Asia/Baghdad",
    "E. Africa Standard Time": "Africa/Nairobi",
    "Iran Standard Time": "Asia/Tehran",
    "Arabian Standard Time": "Asia/Dubai",
    "Azerbaijan Standard Time": "Asia/Baku",
    "Georgian Standard Time": "Asia/Tbilisi",
    "Caucasus Standard Time": "Asia/Yerevan",
    "Mauritius Standard Time": "Indian/Mauritius",
    "Afghanistan Standard Time": "Asia/Kabul",
    "Ekaterinburg Standard Time": "Asia/Yekaterinburg",
    "Pakistan Standard Time": "Asia/Karachi",
    "West Asia Standard Time": "Asia/Tashkent",
    "India Standard Time": "Asia/Kolkata",
    "Sri Lanka Standard Time": "Asia/Colombo",
    "Nepal Standard Time": "Asia/Kathmandu",
    "Central Asia Standard Time": "Asia/Almaty",
    "Bangladesh Standard Time": "Asia/Dhaka",
    "Myanmar Standard Time": "Asia/Yangon",
    "SE Asia Standard Time": "Asia/Bangkok",
    "N. Central Asia Standard Time": "Asia/Novosibirsk",
    "North Asia Standard Time": "Asia/Krasnoyarsk",
    "China Standard Time": "Asia/Shanghai",
    "North Asia East Standard Time": "Asia/Irkutsk",
    "Singapore Standard Time": "Asia/Singapore",
    "W. Australia Standard Time": "Australia/Perth",
    "Taipei Standard Time": "Asia/Taipei",
    "Ulaanbaatar Standard Time": "Asia/Ulaanbaatar",
    "Tokyo Standard Time": "Asia/Tokyo",
    "Korea Standard Time": "Asia/Seoul",
    "Yakutsk Standard Time": "Asia/Yakutsk",
    "Cen. Australia Standard Time": "Australia/Adelaide",
    "AUS Central Standard Time": "Australia/Darwin",
    "E. Australia Standard Time": "Australia/Brisbane",
    "AUS Eastern Standard Time": "Australia/Sydney",
    "West Pacific Standard Time": "Pacific/Port_Moresby",
    "Tasmania Standard Time": "Australia/Hobart",
    "Vladivostok Standard Time": "Asia/Vladivostok",
    "New Zealand Standard Time": "Pacific/Auckland",
    "Fiji Standard Time": "Pacific/Fiji",
    "Tonga Standard Time": "Pacific/Tongatapu",
    "Samoa Standard Time": "Pacific/Apia",
}

_IANA = re.compile(r"^(?:[A-Za-z][A-Za-z0-9_+\-]*)(?:/[A-Za-z0-9_+\-]+)*$")


def from_windows(name: str) -> str:
    """The IANA zone for a Windows zone id ("" if unknown); ``tzutil``'s "_dstoff" suffix is ignored."""
    key = name.strip()
    if key.endswith("_dstoff"):
        key = key[: -len("_dstoff")]
    return WINDOWS.get(key, "")


def _is_zone(name: str) -> bool:
    """True if ``name`` is an IANA zone this Python can load (POSIX systems ship the database)."""
    if not name or not _IANA.match(name):
        return False
    try:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError
    except ImportError:  # pragma: no cover - Python 3.9 has zoneinfo
        return True
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return False
    return True


def from_path(path: str) -> str:
    """The zone named by a path into a zoneinfo database (``.../zoneinfo/Europe/Berlin``), else ""."""
    marker = "/zoneinfo/"
    text = path.replace("\\", "/")
    if marker not in text:
        return ""
    name = text.split(marker, 1)[1]
    for prefix in ("posix/", "right/"):
        if name.startswith(prefix):
            name = name[len(prefix) :]
    return name


def from_tz_variable(value: str) -> str:
    """The zone named by ``TZ`` ("Europe/Berlin", ":Europe/Berlin" or a zoneinfo path), else ""."""
    text = value.strip().lstrip(":")
    if text.startswith("/"):
        return from_path(text)
    return text


def posix_zone(environ: dict[str, str] | None = None, etc: Path = Path("/etc")) -> str:
    """This POSIX machine's zone: ``TZ``, ``/etc/localtime``'s target, ``/etc/timezone``; "" if none."""
    env = os.environ if environ is None else environ
    if env.get("TZ"):
        named = from_tz_variable(env["TZ"])
        return named if _is_zone(named) else ""
    localtime = etc / "localtime"
    if localtime.is_symlink():
        named = from_path(os.path.realpath(localtime))
        if _is_zone(named):
            return named
    try:
        named = (etc / "timezone").read_text(encoding="utf-8").strip().splitlines()[0].strip()
    except (OSError, IndexError, UnicodeDecodeError):
        return ""
    return named if _is_zone(named) else ""


def _windows_key() -> str:  # pragma: no cover - Windows only
    try:
        import winreg

        path = r"SYSTEM\CurrentControlSet\Control\TimeZoneInformation"
        with winreg.OpenKey(winreg.HKEY_LOCAL_MACHINE, path) as key:  # type: ignore[attr-defined,unused-ignore]
            value, _ = winreg.QueryValueEx(key, "TimeZoneKeyName")  # type: ignore[attr-defined,unused-ignore]
            return str(value).strip("\x00 ")
    except OSError:
        pass
    try:
        done = subprocess.run(["tzutil", "/g"], capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip()


def local_zone() -> str:
    """This machine's IANA zone name, or "" when it cannot be named."""
    if sys.platform == "win32":  # pragma: no cover - Windows only
        return from_windows(_windows_key())
    return posix_zone()

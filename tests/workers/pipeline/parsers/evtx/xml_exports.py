"""Event log XML exports built for the tests, in the three shapes Windows writes them.

``real_events`` renders the records of a real ``.evtx`` fixture with the
``evtx`` library's XML renderer (the System/EventData layout Windows
writes), putting back the 7th fraction digit of ``SystemTime`` from the
record header as ``wevtutil`` prints it. ``built_events`` renders the
logons of ``built_logon`` (the library's JSON) as Windows XML. ``export``
joins events as ``wevtutil qe /f:xml`` (no root), Event Viewer (declaration
and ``<Events>``) or ``Get-WinEvent | ForEach-Object ToXml`` (newest first,
one per line) and encodes them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import evtx

from tests.workers.pipeline.parsers.evtx.helpers import _ticks

NAMESPACE = "http://schemas.microsoft.com/win/2004/08/events/event"
_DECLARATION = re.compile(r"<\?xml[^>]*\?>\s*")
_SYSTEM_TIME = re.compile(r'SystemTime="([^"]*)"')


def _seven_digits(rendered: str, header: str) -> str:
    """``SystemTime`` with the header's 7th digit when both name the same microsecond (as Windows writes it)."""
    ticks = _ticks(header)
    text = rendered.rstrip("Z")
    whole, _, fraction = text.partition(".")
    if fraction[:6] == f"{ticks % 10_000_000:07d}"[:6]:
        return f"{whole}.{ticks % 10_000_000:07d}Z"
    return rendered


def real_events(path: Path) -> list[str]:
    """Each record of a real ``.evtx`` as one ``<Event>`` element, in file order."""
    out = []
    for item in evtx.PyEvtxParser(str(path)).records():
        xml = _DECLARATION.sub("", item["data"]).strip()
        rendered = _SYSTEM_TIME.search(xml)
        if rendered:
            seven = _seven_digits(rendered.group(1), item["timestamp"])
            xml = xml[: rendered.start(1)] + seven + xml[rendered.end(1) :]
        out.append(xml)
    return out


def built_events(records: list[dict[str, Any]]) -> list[str]:
    """``built_logon`` records (the library's JSON) as Windows renders them in XML."""
    out = []
    for item in records:
        event = json.loads(item["data"])["Event"]
        system = event["System"]
        seven = item["timestamp"].removesuffix(" UTC")
        correlation = system.get("Correlation")
        activity = correlation["#attributes"]["ActivityID"] if correlation else ""
        parts = [
            f"<Event xmlns='{NAMESPACE}'><System>",
            f"<Provider Name={quoteattr(system['Provider']['#attributes']['Name'])}/>",
            f"<EventID>{system['EventID']}</EventID><Version>0</Version><Level>4</Level>",
            f"<TimeCreated SystemTime='{seven}'/>",
            f"<EventRecordID>{system['EventRecordID']}</EventRecordID>",
            f"<Correlation ActivityID='{activity}'/>" if activity else "<Correlation/>",
            f"<Channel>{escape(system['Channel'])}</Channel><Computer>{escape(system['Computer'])}</Computer>",
            f"<Security UserID='{system['Security']['#attributes']['UserID']}'/></System><EventData>",
            *(f"<Data Name={quoteattr(k)}>{escape(str(v))}</Data>" for k, v in event["EventData"].items()),
            "</EventData></Event>",
        ]
        out.append("".join(parts))
    return out


def export(events: list[str], shape: str, encoding: str = "utf-8") -> bytes:
    """The events as ``wevtutil`` (``shape="wevtutil"``), Event Viewer (``"viewer"``) or ``"get-winevent"`` write them."""
    if shape == "wevtutil":
        text = "".join(events)
    elif shape == "viewer":
        declaration = f'<?xml version="1.0" encoding="{encoding}" standalone="yes"?>\n'
        text = declaration + "<Events>\n" + "\n".join(events) + "\n</Events>\n"
    elif shape == "get-winevent":
        text = "\r\n".join(re.sub(r">\s+<", "><", e) for e in reversed(events)) + "\r\n"
    else:
        raise ValueError(shape)
    if encoding == "utf-16":  # as PowerShell 5 redirects it: UTF-16LE with a BOM
        return ("\ufeff" + text).encode("utf-16-le")
    return text.encode(encoding)

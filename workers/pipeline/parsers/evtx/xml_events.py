"""Event log XML exports, read as a stream of ``<Event>`` elements into the ``Event`` the ``.evtx`` path builds.

Three shapes are read, in any encoding the decode stage recognises (UTF-16
with or without a BOM, UTF-8):

* ``wevtutil qe <channel> /f:xml``: ``<Event>`` elements one after another
  with no root and no XML declaration (often all on one line);
* Event Viewer "Save All Events As... > XML": a declaration and an
  ``<Events>`` root (``wevtutil qe ... /e:Events`` writes the same);
* ``Get-WinEvent ... | ForEach-Object ToXml``: one ``<Event>`` per line,
  newest first.

The text is fed to expat in 1 MiB pieces inside a wrapper element of our own,
so a root-less sequence is one document and nothing but the event being read
is held. A ``<!DOCTYPE`` or ``<!ENTITY`` declaration is refused before
expat sees it (Windows never writes one), so no entity is ever declared or
expanded; only XML's five predefined entities and character references are
read. Each value kept from an event is
cut at :data:`MAX_VALUE` characters, and an event holds at most
:data:`MAX_FIELDS` named values, so a hostile file cannot grow one event
without bound.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TextIO
from xml.parsers import expat

from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.evtx.events import WANTED, Event, Other
from workers.pipeline.parsers.evtx.fields import from_ticks, ticks_of, to_int

PARSER = "evtx_xml"
READ_CHARS = 1 << 20
MAX_VALUE = 4096
MAX_FIELDS = 512
WRAPPER = "headroom-event-export"
MAX_DECLARATION = 512
_DECLARATION = re.compile(r"<\?xml\s[^>]{0,500}\?>")
_DTD = re.compile(r"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)

# The System children whose text or attribute the Event needs: (element, attribute or "" for text).
_SYSTEM = {
    "Provider": "Name",
    "EventID": "",
    "TimeCreated": "SystemTime",
    "EventRecordID": "",
    "Correlation": "ActivityID",
    "Channel": "",
    "Computer": "",
    "Security": "UserID",
}


def error(message: str, line: int | None = None, column: int | None = None) -> ParseError:
    return ParseError(message, line=line, column=column, parser=PARSER)


@dataclass
class Parsed:
    """One ``<Event>`` as read: its System values, its named data, and its line in the file."""

    line: int
    system: dict[str, str] = field(default_factory=dict)
    data: dict[str, str] = field(default_factory=dict)


def local(name: str) -> str:
    """``{ns}Event`` or ``e:Event`` -> ``Event`` (expat runs without namespace processing)."""
    return name.rpartition(":")[2]


class _Handler:
    """Expat callbacks that keep the values of the ``<Event>`` being read and hand each one on when it ends."""

    def __init__(self, parser: expat.XMLParserType, done: Callable[[Parsed], None]) -> None:
        self._parser = parser
        self._done = done
        self._path: list[str] = []  # element names from the <Event> down; empty outside one
        self._event: Parsed | None = None
        self._text: list[str] | None = None  # collecting the current element's text
        self._size = 0
        self._key: tuple[str, str] | None = None  # where the collected text goes: ("system"|"data", name)

    @property
    def inside(self) -> int:
        """The line of the ``<Event>`` being read, 0 between events."""
        return self._event.line if self._event is not None else 0

    def start(self, name: str, attributes: dict[str, str]) -> None:
        tag = local(name)
        if self._event is None:
            if tag == "Event":
                self._event = Parsed(line=self._parser.CurrentLineNumber)
                self._path = ["Event"]
            return
        self._path.append(tag)
        event, depth = self._event, len(self._path)
        if depth == 3 and self._path[1] == "System" and tag in _SYSTEM:
            attribute = _SYSTEM[tag]
            if attribute:
                event.system[tag] = attributes.get(attribute, "")[:MAX_VALUE]
            else:
                self._collect(("system", tag))
        elif depth == 3 and self._path[1] == "EventData" and tag == "Data":
            name_of = attributes.get("Name")
            if name_of:
                self._collect(("data", name_of[:MAX_VALUE]))
        elif depth == 4 and self._path[1] == "UserData":
            # UserData holds one provider-defined element; its children are the named values.
            self._collect(("data", tag))

    def _collect(self, key: tuple[str, str]) -> None:
        self._key, self._text, self._size = key, [], 0

    def text(self, data: str) -> None:
        if self._text is not None and self._size < MAX_VALUE:
            self._text.append(data[: MAX_VALUE - self._size])
            self._size += len(data)

    def end(self, name: str) -> None:
        event = self._event
        if event is None:
            return
        if self._text is not None and self._key is not None:
            where, key = self._key
            value = "".join(self._text).strip()
            if where == "system":
                event.system[key] = value
            elif key in event.data or len(event.data) < MAX_FIELDS:
                event.data[key] = value
            self._text, self._key = None, None
        self._path.pop()
        if not self._path:
            self._event = None
            self._done(event)


def read_events(stream: TextIO) -> Iterator[Parsed]:
    """Each ``<Event>`` of the export, in file order; a ``ParseError`` with the line for XML that is not well-formed."""
    parser = expat.ParserCreate("utf-8")
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    ready: list[Parsed] = []
    handler = _Handler(parser, ready.append)
    parser.StartElementHandler = handler.start
    parser.EndElementHandler = handler.end
    parser.CharacterDataHandler = handler.text
    parser.buffer_text = True

    def feed(text: str, final: bool = False) -> Iterator[Parsed]:
        try:
            parser.Parse(text, final)
        except expat.ExpatError as exc:
            if final and handler.inside:
                raise error(
                    f"the file ends inside the <Event> that starts on line {handler.inside}; "
                    "the export is truncated",
                    exc.lineno,
                ) from None
            message = expat.ErrorString(exc.code)
            raise error(f"the XML is not well-formed: {message}", exc.lineno, exc.offset + 1) from None
        yield from ready
        ready.clear()

    yield from feed(f"<{WRAPPER}>")
    for text in _without_declarations(stream):
        yield from feed(text)
    yield from feed(f"</{WRAPPER}>", final=True)


def _without_declarations(stream: TextIO) -> Iterator[str]:
    """The text in pieces, each ``<?xml ...?>`` declaration replaced by the line breaks it held.

    A declaration may only open a document, and inside our wrapper every one
    would be an error; removing them also reads exports appended to one file.
    A piece ending in a short unfinished tag keeps it for the next piece, so
    a declaration cut in two is still found.
    """
    carry = ""
    first = True
    lines = 0  # line breaks before the piece
    while chunk := stream.read(READ_CHARS):
        if first:
            chunk, first = chunk.lstrip("\ufeff"), False
        text = carry + chunk
        cut = text.rfind("<")
        if cut >= 0 and ">" not in text[cut:] and len(text) - cut < MAX_DECLARATION:
            text, carry = text[:cut], text[cut:]
        else:
            carry = ""
        refused = _DTD.search(text)
        if refused:
            before = text[: refused.start()]
            raise error(
                f"the XML holds a <!{refused.group(1).upper()} declaration, which Windows never writes in an "
                "event export; it is refused (entity expansion)",
                line=lines + before.count("\n") + 1,
                column=refused.start() - before.rfind("\n"),
            )
        lines += text.count("\n")
        yield _DECLARATION.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    if carry:
        yield carry


def to_event(parsed: Parsed, position: int) -> Event | Other:
    """The ``Event`` the collector pairs when it may hold a figure (and has a readable time), else ``Other``.

    ``record`` is the event's ``EventRecordID`` (its position in the file when it has none); the
    caller renumbers events once they are in time order.
    """
    system = parsed.system
    provider = system.get("Provider", "").lower()
    channel = system.get("Channel", "")
    event_id = to_int(system.get("EventID"))
    wanted = WANTED.get(provider)
    if wanted is None or event_id is None or event_id not in wanted:
        return Other(channel or system.get("Provider", ""))
    ticks = ticks_of(system.get("TimeCreated"))
    time = from_ticks(ticks) if ticks is not None else None
    if ticks is None or time is None:
        return Other(channel)
    record = to_int(system.get("EventRecordID"))
    return Event(
        provider=provider,
        channel=channel,
        event_id=event_id,
        record=record if record is not None else position,
        time=time,
        ticks=ticks,
        activity=system.get("Correlation", "").upper(),
        user=system.get("Security", ""),
        computer=system.get("Computer", ""),
        data=dict(parsed.data),
    )

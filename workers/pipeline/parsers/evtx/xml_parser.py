"""Windows event logs exported as XML: the same durations as from the ``.evtx`` file.

Users who cannot copy an ``.evtx`` (or filter one channel's events first)
export them as text: ``wevtutil qe Microsoft-Windows-GroupPolicy/Operational
/f:xml``, Event Viewer's "Save All Events As... > XML", or ``Get-WinEvent
... | ForEach-Object ToXml`` (:mod:`.xml_events` reads all three). Each
``<Event>`` becomes the ``Event`` the ``.evtx`` path builds from the
library's JSON (``Provider/@Name``, ``EventID``, ``TimeCreated/@SystemTime``,
``EventRecordID``, ``Correlation/@ActivityID``, ``Channel``, ``Computer``,
``Security/@UserID`` and the named ``EventData/Data`` or ``UserData``
values) and goes to the same :class:`~.collector.Collector`, so every metric,
subject, pairing rule and inference of :mod:`.parser` applies unchanged.

Order: ``Get-WinEvent`` lists the newest event first and an export may mix
channels, while pairing needs each start before its end. The events worth
decoding (a few per logon; every other one is only counted by channel) are
put in time order (``SystemTime``, then ``EventRecordID``, then file order)
before they are paired; each is then numbered by that order, which is the
``repetition`` order of the rows.

Fidelity: ``SystemTime`` is written with 7 fraction digits by ``wevtutil``
and ``ToXml`` (100 ns, as the ``.evtx`` holds it) and with 9 by Event Viewer
(the last two always 0), so durations are as exact as from the ``.evtx``
file. Every value is text in XML; the collector reads numbers and flags from
text as it does from the JSON.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import ClassVar

from workers.pipeline.decode import Decoded, Opener, decode, decode_error
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.evtx.collector import Collector
from workers.pipeline.parsers.evtx.events import Event
from workers.pipeline.parsers.evtx.parser import nothing_found
from workers.pipeline.parsers.evtx.xml_events import PARSER, error, read_events, to_event
from workers.pipeline.records import Parsed

EVENT_NAMESPACE = "http://schemas.microsoft.com/win/2004/08/events/event"
# An export opens with an optional declaration and comments, then <Events> or the first <Event>.
_OPENING = re.compile(r"\A(?:<\?xml[^>]*\?>\s*)?(?:<!--.*?-->\s*)*<(?:\w+:)?Events?[\s>]", re.DOTALL)


class EvtxXmlParser:
    """Boot, logon, profile and Group Policy durations from a Windows event log exported as XML."""

    name: ClassVar[str] = PARSER
    binary: ClassVar[bool] = False

    def detect(self, head_bytes: bytes, head_text: str) -> int:
        text = head_text.lstrip("\ufeff \t\r\n")
        if _OPENING.match(text) and EVENT_NAMESPACE in text[:8192]:
            return 95
        return 0

    def parse(self, source: Decoded | Opener, context: ParseContext) -> Parsed:
        decoded = source if isinstance(source, Decoded) else decode(source)
        collector = Collector()
        wanted: list[tuple[Event, int]] = []
        position = 0
        try:
            with decoded.open_text() as stream:
                for position, parsed in enumerate(read_events(stream), 1):
                    event = to_event(parsed, position)
                    if isinstance(event, Event):
                        wanted.append((event, position))
                    else:
                        collector.add(event)
        except UnicodeDecodeError as exc:
            raise decode_error(exc, decoded.encoding, PARSER) from None
        if position == 0:
            raise error(
                "no <Event> element found; expected an event log exported as XML "
                "(wevtutil qe <channel> /f:xml, or Event Viewer's Save All Events As... XML)",
                line=1,
            )
        wanted.sort(key=lambda pair: (pair[0].ticks, pair[0].record, pair[1]))
        for order, (event, _) in enumerate(wanted, 1):
            collector.add(replace(event, record=order))
        measurements = collector.measurements()
        if not measurements:
            raise error(nothing_found(collector, "event log export"))
        return Parsed(parser=PARSER, tool="evtx", measurements=measurements, run_attributes={})

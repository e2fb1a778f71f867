"""Windows event logs (``.evtx``): boot, logon, profile and Group Policy durations.

What is read and what comes out is described in :mod:`.parser`; ``events``
reads the file and its records, ``fields`` the values inside a record, and
``collector`` pairs events into durations. The same events exported as XML
(``wevtutil qe ... /f:xml``, Event Viewer, ``Get-WinEvent``) are read by
``xml_events`` and :mod:`.xml_parser` into the same collector.
"""

from workers.pipeline.parsers.evtx.parser import EvtxLogonParser
from workers.pipeline.parsers.evtx.xml_parser import EvtxXmlParser

__all__ = ["EvtxLogonParser", "EvtxXmlParser"]

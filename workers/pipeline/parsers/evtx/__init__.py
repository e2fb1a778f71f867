"""Windows event logs (``.evtx``): boot, logon, profile and Group Policy durations.

What is read and what comes out is described in :mod:`.parser`; ``events``
reads the file and its records, ``fields`` the values inside a record, and
``collector`` pairs events into durations.
"""

from workers.pipeline.parsers.evtx.parser import EvtxLogonParser

__all__ = ["EvtxLogonParser"]

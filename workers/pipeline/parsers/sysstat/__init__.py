"""sysstat recordings (``sadf -j`` JSON, ``sadf -d`` CSV) as perfmon-named counter series."""

from workers.pipeline.parsers.sysstat.parser import SysstatParser

__all__ = ["SysstatParser"]

"""Perfmon counter logs saved as CSV (``relog -f csv``, ``typeperf``, Performance Monitor).

The format is described in :mod:`.parser`; ``layout`` reads lines, the header
and a row's cells, ``times`` the timestamps and their zone. Counter names and
paths are shared with the live samples and live in ``parsers.common``.
"""

from workers.pipeline.parsers.perfmon.parser import PerfmonCsvParser

__all__ = ["PerfmonCsvParser"]

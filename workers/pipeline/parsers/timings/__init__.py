"""Timing results (logon, application launch, copies, syncs): JSON, JSON Lines, CSV, Measure-Command.

The parser and the accepted layouts are in :mod:`.parser`; a row's checks in
:mod:`.rows`; each layout in its own module (``json_rows`` over ``json_scanner``,
``csv_rows``, ``measure_command``).
"""

from workers.pipeline.parsers.timings.parser import TimingsParser
from workers.pipeline.parsers.timings.rows import UNITS_TO_MS

__all__ = ["UNITS_TO_MS", "TimingsParser"]

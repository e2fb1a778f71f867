"""FSCT (Microsoft File Server Capacity Tool) results: one row per user-count step.

The format and the choices are described in :mod:`.parser`; ``layout`` reads
the tables' headers and cells, ``values`` one cell's number, flag or time, and
``reader`` turns the tables into steps and measurements.
"""

from workers.pipeline.parsers.fsct.parser import FsctParser

__all__ = ["FsctParser"]

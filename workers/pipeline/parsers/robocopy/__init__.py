"""Robocopy logs: the summary figures of each job, in any language and code page robocopy writes.

The format, what is stored and how truncated logs are handled are described in
:mod:`.parser`. Reading the log is split by concern: ``labels`` (the words of
every language), ``numbers`` (culture-formatted figures and units), ``table``
(the summary rows), ``dates`` (Started/Ended times), ``jobs`` (the log as jobs)
and ``records`` (jobs -> measurements).
"""

from workers.pipeline.parsers.robocopy.parser import RobocopyParser

__all__ = ["RobocopyParser"]

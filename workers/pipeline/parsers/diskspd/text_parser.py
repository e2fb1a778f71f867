"""DiskSpd text report (``-Rtext``, the default output) -> measurements.

The layouts, the metrics and the choices are described in
:mod:`workers.pipeline.parsers.diskspd`. This module reads the report one
line at a time (a file of many appended runs is never held whole), keeping
only the running totals of the run being read.

Fidelity -- what is stored as printed and what is derived:

* As printed: byte and I/O counts, ``I/O per s`` and ``MiB/s`` (the older
  ``MB/s`` column is the same binary unit) of every ``total:`` row and of a
  target served by one thread, ``AvgLat``, ``LatStdDev``, ``IopsStdDev``,
  every latency percentile, and the CPU ``avg.`` row. ``MiB/s`` is stored in
  decimal MB/s, an exact conversion (x 2^20 / 10^6).
* Derived: rates of a target served by several threads (its summed counts
  over the measured time), its mean latency (the threads' means weighted by
  I/Os), and the CPU average when the report has no ``avg.`` row (the mean
  of the per-CPU rows). The measured time is the one DiskSpd divided every
  count by: the middle of the interval that every printed rate and ``actual
  test time`` allow (each to half a unit of its last digit), so a derived
  rate reproduces every printed one (``text_report._measured_seconds``).
"""

from __future__ import annotations

import re
from typing import ClassVar

from workers.pipeline.decode import Decoded, Opener, decode
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.diskspd.reading import located_decode_error
from workers.pipeline.parsers.diskspd.records import build_parsed
from workers.pipeline.parsers.diskspd.text_lines import MAX_REPORT_LINE, PARSER, Lines
from workers.pipeline.parsers.diskspd.text_report import Report
from workers.pipeline.records import Parsed

# Detection runs on a 64 KiB head: [ \t] rather than \s, which would let ^\s* run across lines.
_DETECT_COMMAND = re.compile(r"^[ \t]*Command Line:.*diskspd", re.IGNORECASE | re.MULTILINE)
_DETECT_INPUT = re.compile(r"^[ \t]*Input parameters:[ \t\r]*$", re.MULTILINE)
_DETECT_TOTAL_IO = re.compile(r"^[ \t]*Total IO[ \t\r]*$", re.MULTILINE)
_DETECT_TIMESPAN = re.compile(r"^[ \t]*timespan:[ \t]*\d+[ \t\r]*$", re.MULTILINE)
_DETECT_RESULTS = re.compile(r"^[ \t]*Results for timespan[ \t]+\d+[ \t]*:", re.MULTILINE | re.IGNORECASE)
_DETECT_TEST_TIME = re.compile(r"^[ \t]*actual test time:", re.MULTILINE | re.IGNORECASE)


class DiskSpdTextParser:
    """DiskSpd's text report, every layout from 2.0.x to 2.2.0, one or several runs per file."""

    name: ClassVar[str] = PARSER
    binary: ClassVar[bool] = False

    def detect(self, head_bytes: bytes, head_text: str) -> int:
        if _DETECT_COMMAND.search(head_text):
            return 90
        has_input = _DETECT_INPUT.search(head_text) is not None
        if has_input and _DETECT_TOTAL_IO.search(head_text):
            return 90
        if _DETECT_RESULTS.search(head_text) and _DETECT_TEST_TIME.search(head_text):
            return 90
        if has_input and _DETECT_TIMESPAN.search(head_text):
            return 80  # a long parameter list pushed the results out of the head
        return 0

    def parse(self, source: Decoded | Opener, context: ParseContext) -> Parsed:
        decoded = source if isinstance(source, Decoded) else decode(source)
        try:
            with decoded.open_text() as stream:
                # No DiskSpd line is anywhere near this long; refusing longer ones early
                # also bounds the regex work per line (found by fuzzing).
                report = Report(Lines(stream, min(context.max_line_bytes, MAX_REPORT_LINE)))
                report.read()
        except UnicodeDecodeError as exc:
            raise located_decode_error(exc, decoded, PARSER) from None
        runs = report.finish()
        return build_parsed(PARSER, runs, context, report.attributes())

"""FSCT (Microsoft File Server Capacity Tool) results: one row per user-count step.

What FSCT is, and what we could not check
-----------------------------------------
FSCT 1.0 (2009; 1.2 in 2011) drives a file server from client machines with
a workload (``HomeFolders``) made of scenarios -- sequences of file
operations such as an Explorer upload or an application opening a file. The
controller (``fsct run controller ... /min_users 100 /max_users 1000 /step
100 /duration 600``) runs one step per user count and, per its documentation,
reports for each step the users, the throughput in scenarios per second,
overload (the share of scenarios that could not run on time -- the server
is at capacity once it is above 0), errors, and per-scenario response times.

No FSCT result file has been published that we could find, and the exact
file names and column spellings of the controller's output could not be
checked. So this parser does not claim to read "what FSCT writes" byte for
byte: it reads one layout, defined below, that carries exactly the figures
FSCT documents per step. It is the controller's summary table as a text
file; output in another shape is refused with a message naming the header
it expected, and can be brought to this shape by hand or by a short script.

The accepted layout ("FSCT step summary")
-----------------------------------------
A text file (any encoding the decode stage recognises) holding:

1. Optionally, a banner and ``Key: value`` lines before the first table
   (``Server: FILE3``, ``Workload: HomeFolders``, ``Clients: C1,C2`` ...).
   Each key becomes a run attribute in snake case (``min_users``); a banner
   line ``File Server Capacity Tool (FSCT) 1.2`` gives ``fsct_version``.
2. The **results table** (required), usually under a ``*** Results`` title:
   a header line whose first label is ``Users`` and which has
   ``Throughput`` and ``Overload`` and/or ``Overloaded``, then one row per
   step. Labels (case-insensitive; the bracketed unit is part of the label):

   ============================  ==========================================
   ``Users``                      user count of the step (integer, required)
   ``Throughput``                 scenarios/s (``[scenarios/s]`` optional)
   ``Overload`` / ``Overload [%]``  percentage, ``%`` sign optional
   ``Overloaded``                 ``yes``/``no``, ``true``/``false``, 1/0
   ``Errors``                     count of failed scenarios (optional)
   ``Errors [%]``                 percentage (optional)
   ``Duration [ms]`` / ``[s]``    length of the step (optional)
   ``Started``, ``Ended``         ISO 8601 date and time (optional)
   ============================  ==========================================

3. Optionally, the **response-time table**, usually under
   ``*** Scenario response times``: a header whose first label is ``Users``
   with ``Scenario`` and ``Average [ms]`` (or ``Avg [ms]``,
   ``Response [ms]``), then one row per step and scenario.

A table is found by its header line (the ``***`` titles are optional) and
ends at a blank line, a ``***`` line or the end of the file. Other labels
(``Count``, ``Min [ms]`` ...) and text outside the tables are ignored.
Columns are separated by a tab, ``;`` or ``,`` when the header line holds
one (in that order), otherwise by runs of spaces -- then a scenario name is
one word, and a timestamp may use a space between date and time. With
tabs or ``;`` a decimal comma is accepted. ``N/A``, ``-`` and empty cells
are missing values (not allowed for users, throughput or the overload).

The step timeline
-----------------
A step runs from ``Started`` to ``Ended`` (or ``Started`` + ``Duration``).
Without a ``Started`` column, the steps are laid back to back from the
upload's ``started_at`` using ``Duration`` -- an approximation, as FSCT
pauses between steps. Times without an offset are read in the upload's
timezone; without one (or without any way to place the steps) the file is
refused rather than stamped with invented times. Steps must not overlap.

What comes out
--------------
``Parsed.steps``: one ``Step(users, started, ended)`` per row, so the
capacity view can read server counters in each step's window. Per step,
stamped at its start with repetition 1: ``fsct.throughput_sps``
(scenarios/s), ``fsct.overload_pct`` (%), ``fsct.overloaded`` (0/1, from
the flag column or overload > 0), ``fsct.errors`` and ``fsct.errors_pct``
when given, and ``fsct.response_ms`` (ms) per scenario with the scenario
name as subject.

A file that ends inside a table row without a line break (a copy cut short
while FSCT was still running) keeps its complete rows; the cut row is left
out and the run attribute ``truncated`` says so. Any other bad row fails the
whole file with its line and column.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar, TextIO

from workers.pipeline.decode import Decoded, Opener, decode, decode_error
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.fsct.layout import PARSER, error, header_of, is_banner
from workers.pipeline.parsers.fsct.reader import Reader
from workers.pipeline.records import Parsed

MAX_LINE_CHARS = 64 * 1024


class FsctParser:
    """FSCT step summaries: throughput, overload, errors and response times per user count."""

    name: ClassVar[str] = PARSER
    binary: ClassVar[bool] = False

    def detect(self, head_bytes: bytes, head_text: str) -> int:
        if any(is_banner(line) for line in head_text.split("\n")):
            return 90
        for line in head_text.splitlines()[:500]:
            try:
                header = header_of(line, 0)
            except ParseError:  # a results header naming a column twice: still FSCT's
                return 90
            if header is not None and header.kind == "results":
                return 90
        return 0

    def parse(self, source: Decoded | Opener, context: ParseContext) -> Parsed:
        decoded = source if isinstance(source, Decoded) else decode(source)
        reader = Reader()
        try:
            with decoded.open_text() as stream:
                for number, line, ended in _lines(stream):
                    reader.feed(number, line, ended)
        except UnicodeDecodeError as exc:
            raise decode_error(exc, decoded.encoding, PARSER) from None
        return reader.result(context)


def _lines(stream: TextIO) -> Iterator[tuple[int, str, bool]]:
    """``(number, text without its line break, whether it had one)``."""
    number = 0
    while True:
        raw = stream.readline(MAX_LINE_CHARS + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_LINE_CHARS and not raw.endswith(("\n", "\r")):
            raise error(f"line is longer than {MAX_LINE_CHARS} characters; not an FSCT summary", number)
        text = raw.rstrip("\r\n")
        yield number, text, text != raw

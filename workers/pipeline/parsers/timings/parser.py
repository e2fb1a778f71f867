"""Timing results: logon, application launch, copies, folder-redirection syncs.

A timing is one row ``{name, started_at, duration_ms, repetition, scenario,
host}``. Accepted layouts, recognised from content:

* **JSON** -- a list of row objects; an object ``{"timings": [...]}`` whose
  optional top-level ``scenario`` and ``host`` are defaults for rows without
  their own; one row object; or **JSON Lines** (one row object per line, or
  any whitespace-separated sequence of row objects).
* **CSV** -- a header holding at least ``name,started_at,duration_ms``
  (optional ``repetition``, ``host``, ``scenario``, ``unit``, ``subject``,
  ``users``, ``tags``; any other column is ignored). The delimiter is ``,``, ``;`` or a
  tab, whichever splits the header into those names. ``scenario`` is a JSON
  object or ``k=v;k=v``; extra columns ``scenario.<key>`` add dimensions.
  ``unit`` (``ms`` default, ``us``, ``s``, ``min``, ``h``) says what unit the
  ``duration_ms`` cell is in, for tools that log seconds; values are stored
  in milliseconds. A row's ``column`` in errors is the 1-based field number,
  as a spreadsheet counts columns.
* **PowerShell Measure-Command** output -- the ``Days : 0 ... TotalMilliseconds
  : 1234.5678`` list, once or several times (a loop), or the one-column
  ``TotalMilliseconds`` table of ``... | Select-Object TotalMilliseconds``.
  Block *k* becomes repetition *k* of the timing named by the upload's
  ``name`` (default ``"command"``). The output holds no clock time, so the
  upload must pass ``started_at``; without it the file is rejected rather
  than stamped with an invented time. Blocks are taken to have run back to
  back (as a loop runs them): block *k* starts at ``started_at`` plus the
  durations of blocks 1..k-1.

A row's optional ``users`` (a whole number, 0 or more; JSON and CSV) is the
number of active user sessions when it was measured: capacity by user
experience places the timing at that user count instead of the load step
its ``started_at`` falls in (``webapp/analysis/timing_steps.py``).

Timestamps are ISO 8601; one without an offset is read in the upload's
``timezone`` and rejected when there is none. ``tags`` are accepted for
compatibility with agents that send them, but not stored: dimensions belong
in ``scenario``. Rows are yielded one at a time, as loading pulls them, and
never held as a list; a bad row raises inside the load's transaction, so it
fails the whole file and never leaves partial rows behind.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain
from typing import ClassVar, TextIO

from workers.pipeline.decode import Decoded, Opener, decode, decode_error
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.timings.csv_rows import csv_header, parse_csv
from workers.pipeline.parsers.timings.json_rows import first_json_row, parse_json
from workers.pipeline.parsers.timings.measure_command import looks_like_measure_command, parse_measure_command
from workers.pipeline.parsers.timings.rows import PARSER, REQUIRED, Clock
from workers.pipeline.records import Measurement, Parsed

# Measure-Command output is read whole; beyond this it is refused with a message instead of
# exhausting the worker's memory (a JSON document is read through a window, a CSV by lines).
MAX_TEXT_CHARS = 256 * 1024 * 1024


class TimingsParser:
    """Timing rows from JSON, JSON Lines, CSV or Measure-Command output."""

    name: ClassVar[str] = PARSER
    binary: ClassVar[bool] = False

    def detect(self, head_bytes: bytes, head_text: str) -> int:
        text = head_text.lstrip("\ufeff \t\r\n")
        if text.startswith(("[", "{")):
            row = first_json_row(text)
            return 90 if row is not None and all(key in row for key in REQUIRED) else 0
        if looks_like_measure_command(text):
            return 80
        header = csv_header(text)
        return 90 if header is not None else 0

    def parse(self, source: Decoded | Opener, context: ParseContext) -> Parsed:
        decoded = source if isinstance(source, Decoded) else decode(source)
        measurements = _measurements(decoded, context)
        first = next(measurements, None)  # the layout and the first row are checked here
        if first is None:
            raise ParseError("the file holds no timing rows", line=1, parser=PARSER)
        return Parsed(parser=PARSER, tool="timing", measurements=chain([first], measurements))


def _measurements(decoded: Decoded, context: ParseContext) -> Iterator[Measurement]:
    """The file's timings, one at a time: loading pulls them in batches, so no layout is ever
    held as a list of rows. A CSV is read line by line and a JSON document through a window
    (``json_scanner``); Measure-Command output, a few hundred bytes a run, is held as text,
    bounded by ``MAX_TEXT_CHARS``."""
    head = decoded.head_text.lstrip("\ufeff \t\r\n")
    clock = Clock(context.timezone)
    try:
        if head.startswith(("[", "{")):
            yield from parse_json(decoded, clock)
            return
        with decoded.open_text() as stream:
            if looks_like_measure_command(head):
                yield from parse_measure_command(_read_all(stream), context, clock)
            else:
                yield from parse_csv(stream, clock)
    except UnicodeDecodeError as exc:
        raise decode_error(exc, decoded.encoding, PARSER) from None


def _read_all(stream: TextIO) -> str:
    text = stream.read(MAX_TEXT_CHARS + 1)
    if len(text) > MAX_TEXT_CHARS:
        raise ParseError(
            f"timings file is larger than {MAX_TEXT_CHARS // (1024 * 1024)} MiB of text; split it into several uploads",
            parser=PARSER,
        )
    return text

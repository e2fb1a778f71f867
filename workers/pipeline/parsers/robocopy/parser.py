"""Robocopy job logs: ``/LOG``, ``/UNILOG``, ``/TEE`` or a redirected console.

The format
==========

One *job* is::

    -------------------------------------------------------------------------------
       ROBOCOPY     ::     Robust File Copy for Windows
    -------------------------------------------------------------------------------
      Started : Friday, July 24, 2026 11:08:15 AM
       Source : C:\\data\\
         Dest : \\\\server\\share\\
        Files : *.*
      Options : *.* /S /E /DCOPY:DA /COPY:DAT /MT:16 /R:1 /W:1
    ------------------------------------------------------------------------------
    <file list: tab-indented lines, progress "100%" glued with carriage returns>
    ------------------------------------------------------------------------------
                   Total    Copied   Skipped  Mismatch    FAILED    Extras
        Dirs :        10        10         0         0         0         0
       Files :        10        10         0         0         0         0
       Bytes :  76.290 g  76.290 g         0         0         0         0
       Times :   0:05:15   0:00:42                       0:00:00   0:00:08
       Speed :           1,915,409,756 Bytes/sec.
       Speed :             109,600.625 MegaBytes/min.
       Ended : Friday, July 24, 2026 11:09:06 AM

and a log may hold several jobs appended (``/LOG+``), each with its banner;
``/NJH`` drops the banner and header, ``/NFL``/``/NDL`` the file list.

* **Labels** are localised (see :mod:`.labels`: en, de, fr, es, pt,
  it, nl, ja, zh, ko, ru, pl, tr, sv, ar). Structure backs them up, so an
  unknown language still parses: a header's first three lines are
  Started/Source/Dest and the line holding ``/switches`` is Options; a
  summary row is ``label: six values`` (Times: four ``h:mm:ss``), in the order
  Dirs, Files, Bytes, Times; a Speed line is ``label: number unit/time``,
  bytes per second or megabytes per *minute* as its time unit says (sec,
  Sek, s, 秒 / min, Min, 分); the next ``label: date`` is Ended.
* **Numbers**: thousands separators ``,`` ``.`` space, NBSP or ``'``;
  decimal ``.`` or ``,``. A Bytes cell is whole bytes or ``number unit`` with
  unit ``k m g t`` (``1.45 t``). A Speed in bytes/s is a whole number (a lone
  separator before three digits groups thousands); MB/min always has three
  decimals, so its last separator is the decimal one.
* **Units are binary.** ``k m g t`` are 1024-based and robocopy's
  "MegaBytes" are MiB: in ``ripvannwinkler_robocopy_NFL_MT16.log`` 76.290 g
  at 1,915,409,756 B/s takes 42.77 s with 1024^3 (the Times row says
  0:00:42, robocopy truncates) but 39.8 s with 10^9, and
  1,915,409,756 x 60 / 2^20 = 109,600.6 is exactly its MegaBytes/min. A Bytes
  cell becomes the whole number of bytes nearest to number x 1024^n. That is
  a lower bound: robocopy truncates what it prints (the files listed in
  ``mohamed_robocopy_frFR_cp850.log`` add up to 6.237 MiB, shown ``6.23 m``),
  so the true count can be up to one unit of the last digit more.
* **Dates** are the Windows long date of the user's locale: month names in
  those languages, ``2026年1月13日`` CJK dates, ``Fri Oct 24 15:13:48 2014``
  (old robocopy), numeric dates when unambiguous, 12-hour clocks with AM/PM,
  ``p. m.``, 午後/下午, ``م``. A date logged through the wrong code page (an
  Arabic date stored as CP437 mojibake) is repaired when it round-trips; a
  date whose characters were dropped (``2026317  12:09:37``) is not guessed.
* **Encoding**: robocopy writes the console's OEM code page (CP850, CP437,
  CP932, GBK ...) unless ``/UNILOG``. When the upload's detected code page is
  a single-byte ANSI one (or a CJK one) and another code page of the same
  family makes the head hold more robocopy words (``Démarrage``,
  ``Más reciente``, NBSP thousands), the log is read in that one instead.

Output
======

Per job: ``dirs.<col>``, ``files.<col>`` (unit ``count``) and ``bytes.<col>``
(``B``) for col in total, copied, skipped, mismatch, failed, extras;
``time.total_s``, ``time.copied_s``, ``time.failed_s``, ``time.extras_s``
(``s``); ``speed.bytes_per_s`` (``B/s``) and ``speed.mb_per_min``
(``MiB/min``) when the log has Speed lines (missing when nothing was copied,
or with old ``/MT``); ``elapsed_s`` = Ended - Started when both are dates.
When a log holds more than one job with a summary, each job's figures carry
``params={"job": "<n>"}`` (n counts the jobs in the log from 1), so each
becomes its own run; a single job's carry ``params={}``: a log is one
execution, so uploaded without a run name it gets a run of its own rather
than the scenario's shared default run (``workers.pipeline.load``).

Durations: ``elapsed_s`` is the copy's wall clock, what a reader means by
"how long it took". ``time.total_s`` is robocopy's "Times: Total", which
with ``/MT:n`` adds up the time of every copy thread: a /MT:8 job from
04:43:32 to 04:52:35 (543 s) prints a Total of 1:20:59 (4,859 s). It stays a
figure of its own, never the copy's duration (``webapp.analysis.metric_groups``).

Every figure is stamped with its job's Started time, read in the upload's
``timezone`` (robocopy writes local time without an offset; without a
timezone the log is refused). When the Started date is unreadable (garbled,
or no header with ``/NJH``) the upload's ``started_at`` is used (ISO 8601),
else the Ended time; with none of them the log is refused with a message
asking for ``started_at``. Each figure's ``until`` is the job's Ended time
(when later), so the job's run spans Started to Ended.

Run attributes: ``source``, ``destination``, ``options``, ``started_at`` and
``ended_at`` (ISO 8601, UTC) of the job; with several jobs, the first job's
start and the last job's end, ``source``/``destination``/``options`` only
when every job has the same, and ``jobs`` -- one entry per job with its own.
``error_lines`` counts robocopy ``ERROR n (0x...)`` lines when there are any.

Fidelity: counts, ``Bytes/sec`` and ``MegaBytes/min`` are stored as
printed. Byte figures printed with a unit (``2.430 g``, ``6.4 k``) are
printed x 1024^n (robocopy's k, m, g, t are binary), so within half a unit
of the printed digit, not the exact byte count robocopy rounded. Times
``h:mm:ss`` are seconds; ``elapsed_s`` (Ended - Started) is derived and
whole seconds like the times it comes from.

Truncated logs
==============

* No job reaches its summary -> ``ParseError`` "the log ends before its
  summary (truncated?)" on the last line.
* A summary cut short: the complete rows (and Speed lines) are emitted and
  ``run_attributes["partial"] = "true"``. A job is partial when any of its
  Dirs/Files/Bytes/Times rows or its Ended line is missing. A last line
  without its line break (or ending inside a character) may have been cut
  mid-way, so it is never used. A job of a multi-job log that stops before
  its summary yields nothing and also marks the log partial.

Error lines after the summary (``ERROR 32 (0x00000020) ...``), file names
with progress glued by carriage returns, and CRs inside lines are tolerated.
The file is streamed line by line, never held in memory.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from typing import ClassVar

from workers.pipeline.decode import Decoded, Opener, decode, decode_error
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.robocopy.dates import Clock
from workers.pipeline.parsers.robocopy.jobs import Reader
from workers.pipeline.parsers.robocopy.labels import EVIDENCE
from workers.pipeline.parsers.robocopy.numbers import PARSER, error
from workers.pipeline.parsers.robocopy.records import parsed
from workers.pipeline.parsers.robocopy.table import has_summary_table
from workers.pipeline.records import Parsed

CHUNK_BYTES = 1024 * 1024

# Code pages tried when the detected one may be a generic detector's miss.
SINGLE_BYTE = ("cp850", "cp437", "cp852", "cp866", "cp857", "cp1252", "cp1250", "cp1251", "cp1254")
DOUBLE_BYTE = ("cp932", "gbk", "big5", "cp949")

_BANNER_IN_TEXT = re.compile(r"^[ \t]*ROBOCOPY[ \t]+::[ \t]*\S", re.MULTILINE)
_EVIDENCE_PATTERNS = re.compile(r"\d\u00a0\d{3}(?!\d)|[ap]\.\u00a0m\.|\S\u00a0:")


class RobocopyParser:
    """Summary figures of each robocopy job in a log."""

    name: ClassVar[str] = PARSER
    binary: ClassVar[bool] = False

    def detect(self, head_bytes: bytes, head_text: str) -> int:
        if _BANNER_IN_TEXT.search(head_text):
            return 90
        return 90 if has_summary_table(head_text) else 0

    def parse(self, source: Decoded | Opener, context: ParseContext) -> Parsed:
        decoded = source if isinstance(source, Decoded) else decode(source)
        encoding = _robocopy_encoding(decoded)
        reader = Reader()
        for number, text, complete in _lines(decoded, encoding, context.max_line_bytes):
            reader.feed(number, text, complete)
        jobs = reader.finish()
        return parsed(jobs, Clock(context))


# --------------------------------------------------------------------------
# Reading: encoding and physical lines


def _score(text: str) -> int:
    """How much of ``text`` reads as a correctly decoded robocopy log."""
    found = sum(text.count(word) for word in EVIDENCE)
    return found + len(_EVIDENCE_PATTERNS.findall(text)) - text.count("\ufffd")


def _robocopy_encoding(decoded: Decoded) -> str:
    """The upload's encoding, or a code page of the same family that reads the head better."""
    name = codecs.lookup(decoded.encoding).name
    if decoded.bom_length or name.startswith("utf"):
        return name
    candidates: tuple[str, ...]
    if name in SINGLE_BYTE or name.startswith(("iso8859", "latin", "cp12", "cp4", "cp8")):
        candidates = SINGLE_BYTE
    elif name in DOUBLE_BYTE or name in ("gb2312", "gb18030", "shift_jis", "euc_kr", "big5hkscs"):
        candidates = DOUBLE_BYTE
    else:
        return name
    head = decoded.head_bytes
    best, best_score = name, _score(head.decode(name, "replace"))
    for candidate in candidates:
        score = _score(head.decode(candidate, "replace"))
        if score > best_score:
            best, best_score = candidate, score
    return best


def _lines(decoded: Decoded, encoding: str, max_line: int) -> Iterator[tuple[int, str, bool]]:
    """``(line number, text, complete)`` per ``\\n``-terminated line; lone CRs stay inside lines.

    ``complete`` is False for a last line without its line break, or one that
    ends inside a character: a cut-off log may have lost part of it.
    """
    decoder = codecs.getincrementaldecoder(encoding)("strict")
    number = 0
    pending = ""
    with decoded.opener() as raw:
        if decoded.bom_length:
            raw.read(decoded.bom_length)
        while chunk := raw.read(CHUNK_BYTES):
            try:
                text = decoder.decode(chunk)
            except UnicodeDecodeError as exc:
                good = exc.object[: exc.start].decode(encoding, "replace")
                failure = decode_error(exc, encoding, PARSER)
                failure.line = number + good.count("\n") + 1
                raise failure from None
            parts = (pending + text).split("\n")
            pending = parts.pop()
            for part in parts:
                number += 1
                yield number, part, True
            if len(pending) > max_line:
                raise error(
                    f"line {number + 1} is longer than {max_line} characters; this is not a robocopy log",
                    number + 1,
                )
    try:
        pending += decoder.decode(b"", final=True)
        cut = False
    except UnicodeDecodeError:
        cut = True
    if pending or cut:
        yield number + 1, pending, False

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

* **Labels** are localised (see :mod:`robocopy_labels`: en, de, fr, es, pt,
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
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from typing import Any, ClassVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from workers.pipeline.decode import Decoded, Opener, decode, decode_error
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.robocopy_labels import (
    AM_MARKERS,
    ENDED_LABELS,
    EVIDENCE,
    HEADER_LABELS,
    MONTHS,
    PM_MARKERS,
    SPEED_LABELS,
    SUMMARY_LABELS,
    fold_label,
    fold_text,
)
from workers.pipeline.records import Measurement, Parsed
from workers.pipeline.registry import ParseContext, register

PARSER = "robocopy"
CHUNK_BYTES = 1024 * 1024
COLUMNS = ("total", "copied", "skipped", "mismatch", "failed", "extras")
TIME_COLUMNS = ("total", "copied", "failed", "extras")
COUNT_ROWS = ("dirs", "files", "bytes")
ROWS = (*COUNT_ROWS, "times")
UNIT_POWER = {"k": 1, "m": 2, "g": 3, "t": 4, "p": 5}
HEADER_ORDER = ("started", "source", "destination")

# Code pages tried when the detected one may be a generic detector's miss.
SINGLE_BYTE = ("cp850", "cp437", "cp852", "cp866", "cp857", "cp1252", "cp1250", "cp1251", "cp1254")
DOUBLE_BYTE = ("cp932", "gbk", "big5", "cp949")

_BANNER = re.compile(r"^[ \t]*ROBOCOPY[ \t]+::")
_BANNER_IN_TEXT = re.compile(r"^[ \t]*ROBOCOPY[ \t]+::[ \t]*\S", re.MULTILINE)
_RULE = re.compile(r"^\s*-{20,}\s*$")
# A label has no digits (so "2026/01/13 17:59:24 ERROR ..." is not one); the first ":" or
# full-width colon ends it. Matched piecewise by _label_value: one regex with spaces on both
# sides of an optional-space label backtracks quadratically on long runs of spaces.
_COLON = re.compile(r"[:\uff1a]")
_LABEL_TEXT = re.compile(r"[^\d\t:\uff1a/\\|\"<>=*?]{1,48}")
_LABEL_PAD = " \u00a0"
_PROGRESS = re.compile(r"^\s*\d+(?:[.,]\d+)?%\s*$")
_ERROR_CODE = re.compile(r"\S\s+\d+\s+\(0x[0-9A-Fa-f]{8}\)")
_SWITCH = re.compile(r"(?:^|\s)/[A-Za-z]")
_SPLIT = re.compile(r"[ \t\r]+")
_TIME_CELL = re.compile(r"\d{1,9}:\d{2}:\d{2}")
_NUMBER_CELL = re.compile(r"(?P<num>\d(?:[\d.,'\u00a0\u202f]*\d)?)(?:[ \u00a0]?(?P<unit>[kmgtpKMGTP]))?")
_WIDE_CELL = re.compile(r"(?P<num>\d(?:[\d.,'\u00a0\u202f ]*\d)?)(?:[ \u00a0]?(?P<unit>[kmgtpKMGTP]))?")
_UNIT_WORD = re.compile(r"^[kmgtpKMGTP]$")
_SPEED = re.compile(r"^\s*(?P<num>\d(?:[\d.,'\u00a0\u202f ]*\d)?)\s*[^\d\s/][^/\d]*/(?P<per>[^/\d]+)$")
_GROUPING = re.compile(r"[ \u00a0\u202f'\u2019]")
_EVIDENCE_PATTERNS = re.compile(r"\d\u00a0\d{3}(?!\d)|[ap]\.\u00a0m\.|\S\u00a0:")

# Dates, matched on fold_text() output.
_CLOCK = re.compile(r"(?<!\d)(\d{1,2}):(\d{2})(?::(\d{2}))?(?!\d)")
_AMPM = re.compile(r"(?<![^\W\d_])([ap])\.?\s?m\.?(?![^\W\d_])")
_CJK_DATE = re.compile(r"(\d{4})\s*[年년]\s*(\d{1,2})\s*[月월]\s*(\d{1,2})")
_NUMERIC_DATE = re.compile(r"(?<!\d)(\d{1,4})([./-]) ?(\d{1,2})\2 ?(\d{1,4})(?!\d)")
_MONTH_NAME = re.compile(
    r"(?<!\w)(" + "|".join(re.escape(name) for name in sorted(MONTHS, key=len, reverse=True)) + r")(?!\w)"
)
_WHOLE_NUMBER = re.compile(r"(?<!\d)\d+(?!\d)")


def _marker_pattern(markers: tuple[str, ...]) -> re.Pattern[str]:
    parts = []
    for marker in markers:
        escaped = re.escape(marker)
        # Ideographic markers stand out on their own; a letter (Arabic م) must be a word.
        parts.append(
            escaped if any("\u3000" <= ch <= "\u9fff" for ch in marker) else rf"(?<!\w){escaped}(?!\w)"
        )
    return re.compile("|".join(parts))


_AM = _marker_pattern(AM_MARKERS)
_PM = _marker_pattern(PM_MARKERS)


@register
class RobocopyParser:
    """Summary figures of each robocopy job in a log."""

    name: ClassVar[str] = PARSER
    binary: ClassVar[bool] = False

    def detect(self, head_bytes: bytes, head_text: str) -> int:
        if _BANNER_IN_TEXT.search(head_text):
            return 90
        return 90 if _has_summary_table(head_text) else 0

    def parse(self, source: Decoded | Opener, context: ParseContext) -> Parsed:
        decoded = source if isinstance(source, Decoded) else decode(source)
        encoding = _robocopy_encoding(decoded)
        reader = _Reader()
        for number, text, complete in _lines(decoded, encoding, context.max_line_bytes):
            reader.feed(number, text, complete)
        jobs = reader.finish()
        return _parsed(jobs, _Clock(context))


def _error(message: str, line: int | None = None) -> ParseError:
    return ParseError(message, line=line, parser=PARSER)


def _show(text: str) -> str:
    text = text.strip()
    return repr(text if len(text) <= 60 else text[:57] + "...")


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
                error = decode_error(exc, encoding, PARSER)
                error.line = number + good.count("\n") + 1
                raise error from None
            parts = (pending + text).split("\n")
            pending = parts.pop()
            for part in parts:
                number += 1
                yield number, part, True
            if len(pending) > max_line:
                raise _error(
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


# --------------------------------------------------------------------------
# Numbers


def _decimal(text: str, *, fraction: bool) -> Decimal | None:
    """Culture-formatted number text -> Decimal, or None.

    ``fraction``: a lone ``.``/``,`` is the decimal separator (MB/min, a
    Bytes cell with a unit); otherwise a lone separator before exactly three
    digits groups thousands.
    """
    text = _GROUPING.sub(" ", text.strip())
    if not re.fullmatch(r"\d+(?:[ .,]\d+)*", text):
        return None
    marks = [(index, ch) for index, ch in enumerate(text) if ch in " .,"]
    decimal_at: int | None = None
    if marks and marks[-1][1] in ".,":
        last_index, last = marks[-1]
        others = {ch for _, ch in marks[:-1]}
        if last not in others and (others or fraction or len(text) - last_index - 1 != 3):
            decimal_at = last_index
    whole, frac = (text[:decimal_at], text[decimal_at + 1 :]) if decimal_at is not None else (text, "")
    groups = re.split(r"[ .,]", whole)
    if len(whole) > 30:  # no robocopy figure is that long; keeps floats finite
        return None
    if len(groups) > 1 and (len(groups[0]) > 3 or any(len(group) != 3 for group in groups[1:])):
        return None
    try:
        return Decimal("".join(groups) + (f".{frac}" if frac else ""))
    except InvalidOperation:  # pragma: no cover - the pattern above admits digits only
        return None


def _seconds(text: str) -> Decimal:
    total = 0
    for part in text.split(":"):
        total = total * 60 + int(part)
    return Decimal(total)


@dataclass(frozen=True)
class _Row:
    """One summary row: six numbers (bytes already scaled) or four durations in seconds."""

    shape: str  # "numbers" or "times"
    values: tuple[Decimal, ...]
    units: bool = False  # a cell had a k/m/g/t unit or a fraction


def _cell(text: str, pattern: re.Pattern[str]) -> tuple[Decimal, bool] | None:
    match = pattern.fullmatch(text)
    if match is None:
        return None
    unit = match["unit"]
    value = _decimal(match["num"], fraction=unit is not None)
    if value is None:
        return None
    if unit:
        value *= 1024 ** UNIT_POWER[unit.lower()]
    return value, bool(unit) or value != value.to_integral_value()


def _row_of(cells: list[str], pattern: re.Pattern[str]) -> _Row | None:
    if cells and all(_TIME_CELL.fullmatch(cell) for cell in cells if cell) and any(cells):
        times = [cell for cell in cells if cell]
        if len(cells) == 6 and all(cells[i] for i in (0, 1, 4, 5)):
            times = [cells[i] for i in (0, 1, 4, 5)]
        if len(times) != 4:
            return None
        return _Row("times", tuple(_seconds(cell) for cell in times))
    if len(cells) != 6:
        return None
    values = []
    units = False
    for cell in cells:
        parsed = _cell(cell, pattern)
        if parsed is None:
            return None
        values.append(parsed[0])
        units = units or parsed[1]
    return _Row("numbers", tuple(values), units)


def _table_row(value: str) -> _Row | None:
    """The cells of a summary row (the text after its label), or None if it is not one."""
    body = value.strip(" \t\r")
    if not body or not body[0].isdigit():
        return None
    tokens = _SPLIT.split(body)
    cells: list[str] = []
    for token in tokens:
        if _UNIT_WORD.match(token) and cells and cells[-1][-1:].isdigit():
            cells[-1] += " " + token
        else:
            cells.append(token)
    row = _row_of(cells, _NUMBER_CELL)
    if row is not None:
        return row
    # Fixed width: robocopy right-aligns each cell in ten characters, which
    # keeps numbers grouped with plain spaces apart.
    body = value.rstrip(" \t\r")
    if len(body) > 60:
        return None
    wide = [body[i : i + 10].strip(" \u00a0") for i in range(0, 60, 10)]
    if any(not cell for index, cell in enumerate(wide) if index not in (2, 3)):
        return None
    return _row_of(wide, _WIDE_CELL)


def _label_value(line: str) -> tuple[str, str] | None:
    """``(label, value)`` of a ``Label : value`` line whose label holds a letter, else None."""
    colon = _COLON.search(line)
    if colon is None:
        return None
    label = line[: colon.start()].strip(_LABEL_PAD)
    if not _LABEL_TEXT.fullmatch(label) or not any(ch.isalpha() for ch in label):
        return None
    value = line[colon.end() :]
    if value.endswith("\n"):
        value = value[:-1]
    return None if "\n" in value else (label, value)


def _has_summary_table(text: str) -> bool:
    numbers = times = 0
    for line in text.splitlines():
        found = _label_value(line)
        if found is None:
            continue
        row = _table_row(found[1])
        if row is None:
            continue
        if row.shape == "times":
            times += 1
        else:
            numbers += 1
        if times and numbers >= 2:
            return True
    return False


# --------------------------------------------------------------------------
# Dates


def _unmangle(text: str) -> str:
    """Undo UTF-8 text that was read as an OEM/ANSI code page (``┘è┘å╪º`` -> ``يناير``)."""
    if text.isascii():
        return text
    for code_page in ("cp437", "cp850", "cp1252"):
        try:
            fixed = text.encode(code_page).decode("utf-8")
        except UnicodeError:
            continue
        if fixed != text:
            return fixed
    return text


def _date(text: str) -> tuple[int, int, int] | None:
    cjk = _CJK_DATE.search(text)
    if cjk:
        return int(cjk[1]), int(cjk[2]), int(cjk[3])
    numeric = _NUMERIC_DATE.search(text)
    if numeric:
        first, sep, second, third = numeric[1], numeric[2], numeric[3], numeric[4]
        if len(first) == 4:
            return int(first), int(second), int(third)
        if len(third) != 4:
            return None
        if sep == "." or int(first) > 12 or first == second:
            return int(third), int(second), int(first)
        if int(second) > 12:
            return int(third), int(first), int(second)
        return None  # 03/04/2026: day or month first cannot be told
    months = {MONTHS[name] for name in _MONTH_NAME.findall(text)}
    if len(months) != 1:
        return None
    numbers = _WHOLE_NUMBER.findall(_MONTH_NAME.sub(" ", text))
    years = [number for number in numbers if len(number) == 4]
    days = [number for number in numbers if len(number) <= 2]
    if len(numbers) != 2 or len(years) != 1 or len(days) != 1:
        return None
    return int(years[0]), months.pop(), int(days[0])


def _local_time(text: str) -> datetime | None:
    """A Started/Ended value as naive local time, or None when it is not a readable date."""
    folded = " ".join(fold_text(_unmangle(text)).split())
    clock = _CLOCK.search(folded)
    if clock is None:
        return None
    hour, minute, second = int(clock[1]), int(clock[2]), int(clock[3] or 0)
    rest = f"{folded[: clock.start()]} {folded[clock.end() :]}"
    found = _date(rest)
    if found is None:
        return None
    ampm = _AMPM.search(rest)
    if (ampm and ampm[1] == "p") or (not ampm and _PM.search(rest)):
        if hour < 12:
            hour += 12
    elif ((ampm and ampm[1] == "a") or _AM.search(rest)) and hour == 12:
        hour = 0
    if not 1980 <= found[0] <= 2200:  # robocopy's era; also keeps UTC conversion in range
        return None
    try:
        return datetime(*found, hour, minute, second)
    except ValueError:
        return None


class _Clock:
    """Turns the log's local times into UTC with the upload's timezone."""

    def __init__(self, context: ParseContext) -> None:
        self.zone: ZoneInfo | None = None
        if context.timezone:
            try:
                self.zone = ZoneInfo(context.timezone)
            except (ZoneInfoNotFoundError, ValueError):
                raise _error(
                    f"unknown timezone {context.timezone!r}; expected an IANA name such as Europe/Paris"
                ) from None
        self.started_text = context.extra.get("started_at", "").strip()

    def utc(self, local: datetime, line: int | None) -> datetime:
        if self.zone is None:
            raise _error(
                "robocopy logs hold local wall-clock times without a UTC offset; upload it again with "
                "`timezone` (the IANA zone of the machine that wrote it, such as Europe/Paris; "
                "headroom-agent upload --timezone Europe/Paris) so they can be converted to UTC",
                line,
            )
        return local.replace(tzinfo=self.zone).astimezone(UTC)

    def upload_started(self) -> datetime | None:
        if not self.started_text:
            return None
        try:
            moment = datetime.fromisoformat(self.started_text)
        except ValueError:
            raise _error(
                f"started_at must be an ISO 8601 timestamp such as 2026-03-17T12:09:37+08:00, "
                f"got {_show(self.started_text)}"
            ) from None
        if moment.tzinfo is None:
            return self.utc(moment, None)
        return moment.astimezone(UTC)


# --------------------------------------------------------------------------
# The job state machine


@dataclass
class _Job:
    number: int
    banner: bool
    header_open: bool = False
    header_lines: int = 0
    fields: dict[str, tuple[str, int]] = field(default_factory=dict)
    rows: dict[str, tuple[_Row, int]] = field(default_factory=dict)
    bytes_per_s: tuple[Decimal, int] | None = None
    mb_per_min: tuple[Decimal, int] | None = None
    ended: tuple[str, int] | None = None
    errors: int = 0

    @property
    def partial(self) -> bool:
        return any(kind not in self.rows for kind in ROWS) or self.ended is None


class _Reader:
    def __init__(self) -> None:
        self.jobs: list[_Job] = []
        self.job: _Job | None = None
        self.last_line = 0
        self.saw_text = False
        self.misaligned_at: int | None = None

    def feed(self, number: int, text: str, complete: bool) -> None:
        self.last_line = number
        if self.misaligned_at is None and "\u0a00" in text:
            # A line feed read one byte off: UTF-16 with a byte lost or added.
            self.misaligned_at = number
        if not complete:
            self.saw_text = self.saw_text or bool(text.strip())
            return
        if text[:1] == "\t":
            # File list (or a header continuation): skip, unless a CR glued
            # something after the file name.
            if "\r" not in text:
                return
            segments = text.split("\r")[1:]
        elif "\r" in text:
            segments = text.split("\r")
        else:
            segments = [text]
        for segment in segments:
            if segment.strip() and not _PROGRESS.match(segment):
                self.saw_text = True
                self._segment(number, segment.rstrip())

    def _new_job(self, banner: bool) -> _Job:
        self.job = _Job(len(self.jobs) + 1, banner, header_open=banner)
        self.jobs.append(self.job)
        return self.job

    def _segment(self, number: int, text: str) -> None:
        if _BANNER.match(text):
            self._new_job(banner=True)
            return
        job = self.job
        if _RULE.match(text):
            if job is not None and job.header_open and job.header_lines:
                job.header_open = False
            return
        if job is not None and "(0x" in text and _ERROR_CODE.search(text):
            job.errors += 1
        found = _label_value(text)
        if found is None:
            return
        label, value = found
        key = fold_label(label)
        row = _table_row(value)
        if row is not None:
            self._row(number, key, label, row)
        elif job is None:
            return
        elif job.rows and job.ended is None:
            self._after_table(job, number, key, value)
        elif job.header_open:
            self._header(job, number, key, value)

    def _row(self, number: int, key: str, label: str, row: _Row) -> None:
        job = self.job
        kind = "times" if row.shape == "times" else SUMMARY_LABELS.get(key)
        if kind == "times" and row.shape != "times":
            kind = None
        if kind is None:
            taken = job.rows if job is not None and job.ended is None else {}
            kind = "bytes" if row.units else next((k for k in COUNT_ROWS if k not in taken), "dirs")
        if kind in ("dirs", "files") and row.units:
            raise _error(
                f"the {label.strip()!r} row of the summary holds fractions or units; expected counts", number
            )
        if job is None or kind in job.rows or job.ended is not None:
            job = self._new_job(banner=False)
        job.header_open = False
        job.rows[kind] = (row, number)

    def _after_table(self, job: _Job, number: int, key: str, value: str) -> None:
        speed = _SPEED.match(value.rstrip())
        if speed:
            # "Bytes/sec." or "MegaBytes/min.": the time unit tells them apart
            # in every language (sec, Sek, s, 秒 / min, Min, 分, мин).
            per = fold_label(speed["per"])
            if per.startswith(("m", "\u043c", "dak", "\u5206")) and per != "mp":
                figure = _decimal(speed["num"], fraction=True)
                if figure is not None and job.mb_per_min is None:
                    job.mb_per_min = (figure, number)
            else:
                figure = _decimal(speed["num"], fraction=False)
                if figure is not None and job.bytes_per_s is None:
                    job.bytes_per_s = (figure, number)
            return
        unknown = key not in SPEED_LABELS and key not in SUMMARY_LABELS
        if key in ENDED_LABELS or (unknown and _CLOCK.search(fold_text(value))):
            job.ended = (value.strip(), number)

    def _header(self, job: _Job, number: int, key: str, value: str) -> None:
        kind = HEADER_LABELS.get(key)
        index = job.header_lines
        job.header_lines += 1
        if kind is None:
            if index < len(HEADER_ORDER):
                kind = HEADER_ORDER[index]
            elif _SWITCH.search(value):
                kind = "options"
            else:
                return
        if kind not in job.fields:
            job.fields[kind] = (value.strip(), number)

    def finish(self) -> list[_Job]:
        if any(job.rows for job in self.jobs):
            return self.jobs
        if not self.saw_text:
            raise _error("the file is empty", 1)
        if not any(job.banner for job in self.jobs):
            raise _error(
                "not a robocopy log: found neither the 'ROBOCOPY :: ...' banner nor a summary table "
                "(Dirs/Files/Bytes/Times rows)",
                1,
            )
        if self.misaligned_at is not None:
            raise _error(
                f"the text turns to garbage at line {self.misaligned_at}: the file looks like UTF-16 with a "
                "byte lost or added there; upload the original log",
                self.misaligned_at,
            )
        raise _error("the log ends before its summary (truncated?)", self.last_line)


# --------------------------------------------------------------------------
# Output


def _whole(value: Decimal) -> float:
    return float(value.to_integral_value(ROUND_HALF_EVEN))


@dataclass
class _Stamped:
    time: datetime
    started: datetime | None
    ended: datetime | None
    elapsed: float | None


def _stamp(job: _Job, clock: _Clock) -> _Stamped:
    started_field = job.fields.get("started")
    started_local = _local_time(started_field[0]) if started_field else None
    ended_local = _local_time(job.ended[0]) if job.ended else None
    started = clock.utc(started_local, started_field[1]) if started_local and started_field else None
    if started is None:
        started = clock.upload_started()
    ended = None
    if ended_local and job.ended and (clock.zone is not None or started is None):
        ended = clock.utc(ended_local, job.ended[1])
    time = started or ended
    if time is None:
        if started_field:
            problem = f"its Started line reads {_show(started_field[0])}, which is not a readable date"
            line = started_field[1]
        else:
            problem = "it has no Started line (written with /NJH?) and no readable Ended line"
            line = min(row_line for _, row_line in job.rows.values())
        raise _error(
            f"robocopy job {job.number} has no usable start time: {problem}; upload the log with "
            "started_at (ISO 8601, e.g. 2026-03-17T12:09:37+08:00)",
            line,
        )
    elapsed = None
    if started_local and ended_local and started and ended and ended >= started:
        elapsed = (ended - started).total_seconds()
    return _Stamped(time, started, ended, elapsed)


def _measurements(job: _Job, stamp: _Stamped, params: dict[str, str] | None) -> list[Measurement]:
    out: list[Measurement] = []

    until = stamp.ended if stamp.ended and stamp.ended > stamp.time else None

    def add(metric: str, value: float, unit: str, line: int) -> None:
        out.append(
            Measurement(
                time=stamp.time, metric=metric, value=value, unit=unit, line=line, params=params, until=until
            )
        )

    for kind in COUNT_ROWS:
        if kind in job.rows:
            row, line = job.rows[kind]
            unit = "B" if kind == "bytes" else "count"
            for column, value in zip(COLUMNS, row.values, strict=True):
                add(f"{kind}.{column}", _whole(value), unit, line)
    if "times" in job.rows:
        row, line = job.rows["times"]
        for column, value in zip(TIME_COLUMNS, row.values, strict=True):
            add(f"time.{column}_s", float(value), "s", line)
    if job.bytes_per_s:
        add("speed.bytes_per_s", float(job.bytes_per_s[0]), "B/s", job.bytes_per_s[1])
    if job.mb_per_min:
        add("speed.mb_per_min", float(job.mb_per_min[0]), "MiB/min", job.mb_per_min[1])
    if stamp.elapsed is not None and job.ended:
        add("elapsed_s", stamp.elapsed, "s", job.ended[1])
    return out


def _job_attributes(job: _Job, stamp: _Stamped | None) -> dict[str, str]:
    attributes = {"job": str(job.number)}
    for key in ("source", "destination", "options"):
        if key in job.fields:
            attributes[key] = job.fields[key][0]
    if stamp and stamp.started:
        attributes["started_at"] = stamp.started.isoformat()
    if stamp and stamp.ended:
        attributes["ended_at"] = stamp.ended.isoformat()
    if job.partial:
        attributes["partial"] = "true"
    return attributes


def _parsed(jobs: list[_Job], clock: _Clock) -> Parsed:
    complete = [job for job in jobs if job.rows]
    stamps = {job.number: _stamp(job, clock) for job in complete}
    several = len(complete) > 1
    measurements: list[Measurement] = []
    for job in complete:
        params = {"job": str(job.number)} if several else {}
        measurements.extend(_measurements(job, stamps[job.number], params))

    per_job = [_job_attributes(job, stamps.get(job.number)) for job in jobs]
    emitted = [entry for entry in per_job if int(entry["job"]) in stamps]
    attributes: dict[str, Any] = {}
    for key in ("source", "destination", "options"):
        values = {entry.get(key) for entry in emitted}
        if len(values) == 1 and None not in values:
            attributes[key] = values.pop()
    if "started_at" in emitted[0]:
        attributes["started_at"] = emitted[0]["started_at"]
    if "ended_at" in emitted[-1]:
        attributes["ended_at"] = emitted[-1]["ended_at"]
    if any(job.partial for job in jobs):
        attributes["partial"] = "true"
    errors = sum(job.errors for job in jobs)
    if errors:
        attributes["error_lines"] = str(errors)
    if len(jobs) > 1:
        attributes["jobs"] = per_job
    return Parsed(parser=PARSER, tool="robocopy", measurements=measurements, run_attributes=attributes)

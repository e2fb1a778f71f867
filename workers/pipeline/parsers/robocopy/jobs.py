"""The log as a sequence of jobs: header lines, the summary table, speed and Ended lines of each."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal

from workers.pipeline.parsers.robocopy.dates import CLOCK
from workers.pipeline.parsers.robocopy.labels import (
    ENDED_LABELS,
    HEADER_LABELS,
    SPEED_LABELS,
    SUMMARY_LABELS,
    fold_label,
    fold_text,
)
from workers.pipeline.parsers.robocopy.numbers import decimal, error
from workers.pipeline.parsers.robocopy.table import COUNT_ROWS, ROWS, Row, label_value, table_row

HEADER_ORDER = ("started", "source", "destination")
_BANNER = re.compile(r"^[ \t]*ROBOCOPY[ \t]+::")
_RULE = re.compile(r"^\s*-{20,}\s*$")
_PROGRESS = re.compile(r"^\s*\d+(?:[.,]\d+)?%\s*$")
_ERROR_CODE = re.compile(r"\S\s+\d+\s+\(0x[0-9A-Fa-f]{8}\)")
_SWITCH = re.compile(r"(?:^|\s)/[A-Za-z]")
_SPEED = re.compile(r"^\s*(?P<num>\d(?:[\d.,'\u00a0\u202f ]*\d)?)\s*[^\d\s/][^/\d]*/(?P<per>[^/\d]+)$")


@dataclass
class Job:
    number: int
    banner: bool
    header_open: bool = False
    header_lines: int = 0
    fields: dict[str, tuple[str, int]] = field(default_factory=dict)
    rows: dict[str, tuple[Row, int]] = field(default_factory=dict)
    bytes_per_s: tuple[Decimal, int] | None = None
    mb_per_min: tuple[Decimal, int] | None = None
    ended: tuple[str, int] | None = None
    errors: int = 0

    @property
    def partial(self) -> bool:
        return any(kind not in self.rows for kind in ROWS) or self.ended is None


class Reader:
    def __init__(self) -> None:
        self.jobs: list[Job] = []
        self.job: Job | None = None
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

    def _new_job(self, banner: bool) -> Job:
        self.job = Job(len(self.jobs) + 1, banner, header_open=banner)
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
        found = label_value(text)
        if found is None:
            return
        label, value = found
        key = fold_label(label)
        row = table_row(value)
        if row is not None:
            self._row(number, key, label, row)
        elif job is None:
            return
        elif job.rows and job.ended is None:
            self._after_table(job, number, key, value)
        elif job.header_open:
            self._header(job, number, key, value)

    def _row(self, number: int, key: str, label: str, row: Row) -> None:
        job = self.job
        kind = "times" if row.shape == "times" else SUMMARY_LABELS.get(key)
        if kind == "times" and row.shape != "times":
            kind = None
        if kind is None:
            taken = job.rows if job is not None and job.ended is None else {}
            kind = "bytes" if row.units else next((k for k in COUNT_ROWS if k not in taken), "dirs")
        if kind in ("dirs", "files") and row.units:
            raise error(
                f"the {label.strip()!r} row of the summary holds fractions or units; expected counts", number
            )
        if job is None or kind in job.rows or job.ended is not None:
            job = self._new_job(banner=False)
        job.header_open = False
        job.rows[kind] = (row, number)

    def _after_table(self, job: Job, number: int, key: str, value: str) -> None:
        speed = _SPEED.match(value.rstrip())
        if speed:
            # "Bytes/sec." or "MegaBytes/min.": the time unit tells them apart
            # in every language (sec, Sek, s, 秒 / min, Min, 分, мин).
            per = fold_label(speed["per"])
            if per.startswith(("m", "\u043c", "dak", "\u5206")) and per != "mp":
                figure = decimal(speed["num"], fraction=True)
                if figure is not None and job.mb_per_min is None:
                    job.mb_per_min = (figure, number)
            else:
                figure = decimal(speed["num"], fraction=False)
                if figure is not None and job.bytes_per_s is None:
                    job.bytes_per_s = (figure, number)
            return
        unknown = key not in SPEED_LABELS and key not in SUMMARY_LABELS
        if key in ENDED_LABELS or (unknown and CLOCK.search(fold_text(value))):
            job.ended = (value.strip(), number)

    def _header(self, job: Job, number: int, key: str, value: str) -> None:
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

    def finish(self) -> list[Job]:
        if any(job.rows for job in self.jobs):
            return self.jobs
        if not self.saw_text:
            raise error("the file is empty", 1)
        if not any(job.banner for job in self.jobs):
            raise error(
                "not a robocopy log: found neither the 'ROBOCOPY :: ...' banner nor a summary table "
                "(Dirs/Files/Bytes/Times rows)",
                1,
            )
        if self.misaligned_at is not None:
            raise error(
                f"the text turns to garbage at line {self.misaligned_at}: the file looks like UTF-16 with a "
                "byte lost or added there; upload the original log",
                self.misaligned_at,
            )
        raise error("the log ends before its summary (truncated?)", self.last_line)

"""The parsers in use, in one ordered list, and how a file finds its parser.

A new format is one module (or subpackage) under ``parsers/`` plus its tests,
and one line in ``PARSERS`` below. Nothing registers itself on import.
"""

from __future__ import annotations

from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.base import Parser
from workers.pipeline.parsers.blg import BlgParser
from workers.pipeline.parsers.diskspd import DiskSpdTextParser, DiskSpdXmlParser
from workers.pipeline.parsers.evtx import EvtxLogonParser, EvtxXmlParser
from workers.pipeline.parsers.fio import FioJsonParser
from workers.pipeline.parsers.fsct import FsctParser
from workers.pipeline.parsers.perfmon import PerfmonCsvParser
from workers.pipeline.parsers.robocopy import RobocopyParser
from workers.pipeline.parsers.samples_json import SamplesJsonParser
from workers.pipeline.parsers.sysstat import SysstatParser
from workers.pipeline.parsers.timings import TimingsParser

# Detection asks every parser and takes the highest score; when several give the
# same score, the one listed first wins. The order is by name, last first, which is
# the tie-break detection has always had (it ranked (score, name) from the top).
PARSERS: tuple[Parser, ...] = (
    TimingsParser(),
    SysstatParser(),
    SamplesJsonParser(),  # name "samples"
    RobocopyParser(),
    PerfmonCsvParser(),
    FsctParser(),
    FioJsonParser(),
    EvtxXmlParser(),
    EvtxLogonParser(),
    DiskSpdXmlParser(),
    DiskSpdTextParser(),
    BlgParser(),
)


def all_parsers() -> dict[str, Parser]:
    """Every parser by name, in detection order."""
    return {parser.name: parser for parser in PARSERS}


def get_parser(name: str) -> Parser:
    parsers = all_parsers()
    try:
        return parsers[name]
    except KeyError:
        known = ", ".join(sorted(parsers))
        raise ParseError(f"unknown kind {name!r}; expected 'auto' or one of: {known}") from None


def detect_parser(head_bytes: bytes, head_text: str) -> Parser:
    """Pick the parser that scores the file's head highest (the first listed on a tie)."""
    best: Parser | None = None
    best_score = 0
    for parser in PARSERS:
        score = parser.detect(head_bytes, head_text)
        if score > best_score:
            best, best_score = parser, score
    if best is None:
        raise ParseError(
            "could not recognise this file's format from its content; "
            f"expected one of: {', '.join(sorted(all_parsers()))} (or pass kind=<parser>)",
            line=1,
        )
    return best

"""DiskSpd XML results (``-Rxml``) -> measurements.

The document, the metrics and the choices are described in
:mod:`workers.pipeline.parsers.diskspd`. The XML is parsed incrementally with
:class:`xml.etree.ElementTree.XMLPullParser`, one physical line at a time (so
every element knows its line), and the per-second IOPS series
(``<Iops><Bucket SampleMillisecond=...>``), which is most of a long run's
file, is dropped as it is read. Several ``<Results>`` documents appended to
one file are read one after the other; text around them (a console prompt)
is ignored. A ``<!DOCTYPE`` or ``<!ENTITY`` declaration is refused before it
reaches the parser: DiskSpd never writes one, and refusing them rules out
entity-expansion attacks without ``defusedxml``.

Fidelity -- what is stored as printed and what is derived: byte and I/O
counts, latency means, standard deviations and percentiles
(``<Latency>``), IOPS standard deviations and the CPU ``<Average>`` are
stored as the XML writes them. The XML prints no rate: IOPS and MB/s are
derived as counts over ``<TestTimeSeconds>`` (2 decimals, so a rate carries
that time's rounding, at most 0.005 s over the run). Per-target figures of a
target served by several threads are sums of its ``<Thread><Target>``
counts, and its mean latency their means weighted by I/Os; the CPU average
is the mean of the ``<CPU>`` rows when ``<Average>`` is missing.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import ClassVar

from workers.pipeline.decode import Decoded, Opener, decode
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.diskspd.reading import error, located_decode_error
from workers.pipeline.parsers.diskspd.records import build_parsed
from workers.pipeline.parsers.diskspd.xml_results import PARSER, Findings, ResultsReader
from workers.pipeline.records import Parsed

_DOCUMENT_START = re.compile(r"<\?xml|<Results[\s>/]")
_DOCUMENT_END = re.compile(r"</Results\s*>")
_DECLARATION = re.compile(r"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)
_ROOT = re.compile(r"<Results\s*>")
_POSITION = re.compile(r":\s*line \d+, column \d+\s*$")


class DiskSpdXmlParser:
    """DiskSpd ``-Rxml`` output: per-thread and per-target results, latency percentiles, CPU."""

    name: ClassVar[str] = PARSER
    binary: ClassVar[bool] = False

    def detect(self, head_bytes: bytes, head_text: str) -> int:
        root = _ROOT.search(head_text)
        if root is None:
            return 0
        # Nothing but an XML declaration, comments, whitespace or console text before <Results>.
        before = head_text[: root.start()]
        if re.search(r"<(?!\?xml|!--)", before):
            return 0
        after = head_text[root.end() :]
        if "<System>" in after or "<Profile>" in after:
            return 95
        return 0

    def parse(self, source: Decoded | Opener, context: ParseContext) -> Parsed:
        decoded = source if isinstance(source, Decoded) else decode(source)
        reader = _Reader()
        try:
            with decoded.open_text() as stream:
                number = 0
                while True:
                    text = stream.readline(context.max_line_bytes + 1)
                    if not text:
                        break
                    number += 1
                    if len(text) > context.max_line_bytes and not text.endswith(("\n", "\r")):
                        raise error(
                            PARSER,
                            f"line is longer than {context.max_line_bytes:,} characters; "
                            "this is not DiskSpd XML output",
                            line=number,
                        )
                    reader.feed_line(text, number)
                reader.end(number)
        except UnicodeDecodeError as exc:
            raise located_decode_error(exc, decoded, PARSER) from None
        return build_parsed(PARSER, reader.found.runs, context, reader.attributes())


# --------------------------------------------------------------------------
# Reading the documents


@dataclass
class _Document:
    line: int  # file line where the document starts
    column: int  # 0-based column of its first character on that line
    parser: ET.XMLPullParser[ET.Element]
    stack: list[ET.Element] = field(default_factory=list)
    root: ET.Element | None = None
    drop: set[int] = field(default_factory=set)  # id()s of IOPS-series buckets to discard


class _Reader:
    def __init__(self) -> None:
        self.document: _Document | None = None
        self.found = Findings()
        self.documents = 0
        self.empty = True

    def feed_line(self, text: str, number: int) -> None:
        if text.strip():
            self.empty = False
        column = 0
        rest = text
        while rest:
            if self.document is None:
                start = _DOCUMENT_START.search(rest)
                if start is None:
                    return
                column += start.start()
                rest = rest[start.start() :]
                self.document = _Document(
                    line=number,
                    column=column,
                    parser=ET.XMLPullParser(events=("start", "end")),
                )
                self.documents += 1
            end = _DOCUMENT_END.search(rest)
            chunk = rest if end is None else rest[: end.end()]
            self._feed(chunk, number, column)
            if end is None:
                return
            self._close()
            column += end.end()
            rest = rest[end.end() :]

    def end(self, number: int) -> None:
        if self.document is not None:
            self._close(at_end=True)
        if self.found.runs:
            return
        if self.empty:
            raise error(PARSER, "the file is empty", line=1)
        if self.found.interrupted_at is not None:
            raise error(
                PARSER,
                "DiskSpd reports that the test was interrupted before the measurements began; "
                "the file holds no results",
                line=self.found.interrupted_at,
            )
        if self.documents:
            raise error(PARSER, "no results found (truncated?)", line=self.found.truncated_at or number)
        raise error(PARSER, "not DiskSpd XML output: no <Results> element found", line=1)

    @staticmethod
    def _refuse_declarations(text: str, number: int, column: int) -> None:
        found = _DECLARATION.search(text)
        if found:
            raise error(
                PARSER,
                f"the XML holds a <!{found.group(1).upper()} declaration, which DiskSpd never writes; "
                "it is refused (entity expansion)",
                line=number,
                column=column + found.start() + 1,
            )

    def _syntax_error(self, exc: ET.ParseError, document: _Document, truncated: bool = False) -> ParseError:
        line, column = exc.position
        message = _POSITION.sub("", str(exc))
        file_line = document.line + line - 1
        file_column = column + 1 + (document.column if line == 1 else 0)
        hint = " (file truncated?)" if truncated or message.startswith("no element found") else ""
        return error(PARSER, f"the XML is not well-formed: {message}{hint}", file_line, file_column)

    def _feed(self, chunk: str, number: int, column: int) -> None:
        document = self.document
        assert document is not None
        self._refuse_declarations(chunk, number, column)
        try:
            document.parser.feed(chunk)
            events = list(document.parser.read_events())
        except ET.ParseError as exc:
            raise self._syntax_error(exc, document) from None
        for item in events:
            if not isinstance(item, tuple) or len(item) != 2 or not isinstance(item[1], ET.Element):
                continue
            event, element = item
            if event == "start":
                parent = document.stack[-1] if document.stack else None
                if parent is None:
                    document.root = element
                    if element.tag != "Results":
                        raise error(
                            PARSER,
                            f"the root element is <{element.tag}>; DiskSpd XML output starts with <Results>",
                            line=number,
                        )
                elif parent.tag == "Iops" and element.tag == "Bucket":
                    document.drop.add(id(element))
                if id(element) not in document.drop:
                    self.found.lines[id(element)] = number
                document.stack.append(element)
            else:
                document.stack.pop()
                if id(element) in document.drop:
                    document.drop.discard(id(element))
                    self.found.lines.pop(id(element), None)
                    if document.stack:
                        document.stack[-1].remove(element)

    def _close(self, at_end: bool = False) -> None:
        """The document ended (its ``</Results>``, or the end of the file: then it was cut short)."""
        document = self.document
        assert document is not None
        self.document = None
        try:
            document.parser.close()
        except ET.ParseError as exc:
            raise self._syntax_error(exc, document, truncated=at_end) from None
        if document.root is None:
            return
        ResultsReader(self.found, document.root).read()
        self.found.lines.clear()

    def attributes(self) -> dict[str, str]:
        attributes = {}
        if len(self.found.computers) == 1:
            attributes["computer_name"] = next(iter(self.found.computers))
        if len(self.found.versions) == 1:
            attributes["diskspd_version"] = next(iter(self.found.versions))
        return attributes

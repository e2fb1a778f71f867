"""Line length and header columns, checked while an upload streams into the raw store.

The parsers enforce the same limits (``HEADROOM_MAX_LINE_BYTES``,
``HEADROOM_MAX_COLUMNS``) on everything they read; checking them here as well
lets the upload API refuse such a file at once with a 413 that names the line,
instead of answering 202 and failing the upload later. Only what can be judged
without knowing the format is checked:

- every line of a text file, in bytes (JSON documents, which may rightly be
  one long line, and binary event logs are not line-based and are left to
  their parsers);
- the counter columns of a perfmon CSV header (its first cell names
  ``PDH-CSV``), counted as the parser counts them.
"""

from __future__ import annotations

import codecs
import csv

# What a file's first bytes look like when it is not line-based text.
_BINARY_MAGIC = (b"ElfFile",)  # Windows event log (.evtx): "ElfFile\0"
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))


class LimitExceeded(Exception):
    def __init__(self, code: str, message: str, line: int) -> None:
        super().__init__(message)
        self.code = code
        self.line = line


class TextLimits:
    """Feed it an upload's bytes chunk by chunk, then ``b""``; it raises ``LimitExceeded``."""

    def __init__(self, max_line_bytes: int, max_columns: int) -> None:
        self.max_line_bytes = max_line_bytes
        self.max_columns = max_columns
        self.lines = 0  # complete lines seen
        self.current = 0  # bytes of the line being read
        self.first_line = bytearray()
        self.header_checked = False
        self.mode = ""  # "" until the first bytes are seen, then "text" or "off"

    def __call__(self, chunk: bytes) -> None:
        if not self.mode:
            self.mode = _mode(chunk)
        if self.mode == "off":
            return
        if not chunk:  # the end
            self._check_line(self.current, self.lines + 1)
            self._check_header()
            return
        first = chunk.find(b"\n")
        head = chunk if first < 0 else chunk[:first]
        if not self.header_checked and len(self.first_line) <= self.max_line_bytes:
            self.first_line += head[: self.max_line_bytes + 1 - len(self.first_line)]
        self._check_line(self.current + len(head), self.lines + 1)
        if first < 0:
            self.current += len(chunk)
            return
        self._check_header()
        last = chunk.rfind(b"\n")
        # Lines wholly inside this chunk need looking at only if the chunk is longer than the limit.
        if last > first and self.max_line_bytes < last - first - 1:
            for index, part in enumerate(chunk[first + 1 : last].split(b"\n")):
                self._check_line(len(part), self.lines + 2 + index)
        self.lines += chunk.count(b"\n", first, last + 1)
        self.current = len(chunk) - last - 1
        self._check_line(self.current, self.lines + 1)

    def _check_line(self, length: int, number: int) -> None:
        if length > self.max_line_bytes:
            raise LimitExceeded(
                "line_too_long",
                f"line {number:,} is longer than the limit of {self.max_line_bytes:,} bytes "
                "(HEADROOM_MAX_LINE_BYTES); expected lines of a text result file",
                number,
            )

    def _check_header(self) -> None:
        if self.header_checked:
            return
        self.header_checked = True
        header = _text(bytes(self.first_line))
        if "PDH-CSV" not in header[:80]:
            return
        try:
            cells = next(csv.reader([header.rstrip("\r")]), [])
        except csv.Error:  # a cell over the csv module's limit: the parser says what is wrong
            return
        # As the parser counts: distinct counter paths (not the time column, a collector
        # set's description column, or a path relog repeated).
        counters = len({cell.lower() for cell in cells[1:] if cell.startswith("\\\\")})
        if counters > self.max_columns:
            raise LimitExceeded(
                "too_many_columns",
                f"line 1: the perfmon header has {counters:,} counter columns, more than the limit of "
                f"{self.max_columns:,} (HEADROOM_MAX_COLUMNS); split the log (relog -c or -cf) into smaller files",
                1,
            )


def _mode(head: bytes) -> str:
    for bom, _ in _BOMS:
        if head.startswith(bom):
            head = head[len(bom) :]
            break
    if head.startswith(_BINARY_MAGIC):
        return "off"
    first = head.lstrip(b" \t\r\n\x00")[:1]
    return "off" if first in (b"{", b"[") else "text"


def _text(data: bytes) -> str:
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data[len(bom) :].decode(encoding, errors="replace")
    return data.decode("latin-1")  # commas, quotes and "PDH-CSV" are the same bytes in any ASCII superset

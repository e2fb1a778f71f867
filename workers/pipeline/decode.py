"""Decode stage: raw bytes -> a text stream in the right encoding.

Windows tools write UTF-16LE with a BOM, UTF-8 with or without one, or the
machine's OEM/ANSI code page (CP850, CP932, GBK, CP1251 ...). We never assume
UTF-8: a BOM decides; otherwise strict UTF-8 is tried on a window of the file
that holds non-ASCII bytes, and failing that ``charset_normalizer`` ranks the
likely Windows code pages on that window. The raw bytes stay in the raw store,
so a wrong guess is fixed by a re-parse, never by a re-upload.
"""

from __future__ import annotations

import codecs
import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import BinaryIO, TextIO

from workers.pipeline.errors import ParseError

HEAD_BYTES = 64 * 1024
SCAN_CHUNK = 1024 * 1024

# The code pages our users' machines write, most common first. Order breaks ties.
CODE_PAGES = ("cp1252", "cp850", "cp1251", "cp866", "cp932", "gbk", "big5", "cp949", "cp1250", "cp437")

BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

Opener = Callable[[], BinaryIO]


@dataclass(frozen=True)
class Decoded:
    """A file whose encoding is known. ``open_text`` gives a fresh stream each call."""

    opener: Opener
    encoding: str
    bom_length: int
    head_bytes: bytes
    head_text: str

    def open_text(self) -> TextIO:
        raw = self.opener()
        if self.bom_length:
            raw.read(self.bom_length)
        return io.TextIOWrapper(raw, encoding=self.encoding, errors="strict", newline="")


def sniff_bom(head: bytes) -> tuple[str, int] | None:
    for bom, encoding in BOMS:
        if head.startswith(bom):
            return encoding, len(bom)
    return None


def _looks_utf16(head: bytes) -> str | None:
    """UTF-16 without a BOM: ASCII text has a NUL in every other byte."""
    sample = head[:4096]
    if len(sample) < 8:
        return None
    even_nuls = sample[0::2].count(0)
    odd_nuls = sample[1::2].count(0)
    half = len(sample) // 2
    if odd_nuls > 0.4 * half and even_nuls < 0.05 * half:
        return "utf-16-le"
    if even_nuls > 0.4 * half and odd_nuls < 0.05 * half:
        return "utf-16-be"
    return None


def _non_ascii_window(opener: Opener, head: bytes) -> bytes:
    """The head if it holds non-ASCII bytes, else the first chunk that does."""
    if not head.isascii():
        return head
    with opener() as raw:
        offset = 0
        while chunk := raw.read(SCAN_CHUNK):
            if not chunk.isascii():
                start = next(i for i, b in enumerate(chunk) if b >= 0x80)
                begin = max(0, start - 1024)
                window = chunk[begin : begin + HEAD_BYTES]
                # Drop a partial line at each end so a multi-byte character
                # is not cut in two.
                first_nl = window.find(b"\n")
                if begin and 0 <= first_nl < start - begin:
                    window = window[first_nl + 1 :]
                return window
            offset += len(chunk)
    return b""


def _valid_utf8(window: bytes) -> bool:
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    try:
        decoder.decode(window, final=False)
    except UnicodeDecodeError:
        return False
    return True


def _best_code_page(window: bytes) -> str:
    from charset_normalizer import from_bytes

    matches = from_bytes(window, cp_isolation=list(CODE_PAGES))
    best = matches.best()
    if best is not None:
        return codecs.lookup(best.encoding).name
    for encoding in CODE_PAGES:
        try:
            window.decode(encoding)
        except UnicodeDecodeError:
            continue
        return encoding
    return "latin-1"


def detect_encoding(opener: Opener, head: bytes) -> tuple[str, int]:
    """Return ``(encoding, bom_length)`` for the file behind ``opener``."""
    bom = sniff_bom(head)
    if bom:
        return bom
    utf16 = _looks_utf16(head)
    if utf16:
        return utf16, 0
    window = _non_ascii_window(opener, head)
    if not window or _valid_utf8(window):
        return "utf-8", 0
    return _best_code_page(window), 0


def decode(opener: Opener, *, encoding: str | None = None) -> Decoded:
    """Work out the encoding of a file and decode its head.

    ``encoding`` forces one (an operator's override when re-parsing).
    """
    with opener() as raw:
        head = raw.read(HEAD_BYTES)
    bom_length = 0
    if encoding is None:
        encoding, bom_length = detect_encoding(opener, head)
    else:
        found = sniff_bom(head)
        bom_length = found[1] if found and found[0] == codecs.lookup(encoding).name else 0
    decoder = codecs.getincrementaldecoder(encoding)("replace")
    head_text = decoder.decode(head[bom_length:], final=False)
    return Decoded(opener, encoding, bom_length, head, head_text)


def decode_error(exc: UnicodeDecodeError, encoding: str, parser: str | None = None) -> ParseError:
    """Turn a decoding failure deep inside a stream into a located, human message."""
    return ParseError(
        f"the file is not valid {encoding} text (byte {exc.object[exc.start : exc.start + 1]!r} "
        f"cannot be decoded); save it as UTF-8 or UTF-16, or re-parse it with the right encoding",
        parser=parser,
    )

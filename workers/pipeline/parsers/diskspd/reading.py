"""DiskSpd files, text or XML: errors located in the file, sizes and units as DiskSpd writes them, target paths."""

from __future__ import annotations

import codecs
import re

from workers.pipeline.decode import Decoded, decode_error
from workers.pipeline.errors import ParseError

MB = 1_000_000  # MB/s is stored in decimal megabytes per second
MIB = 1 << 20  # DiskSpd's MiB/s (and its older "MB/s") column
MAX_SUBJECT = 255  # measurement.subject column width

# On stripped text: "\s*([KMGT]i?B?|B)?\s*$" can split a run of spaces many ways (quadratic).
_SIZE = re.compile(r"^([0-9]{1,15}(?:\.[0-9]{1,9})?)\s*([KMGT]i?B?|B)?$", re.IGNORECASE)
_SIZE_FACTORS = {"": 1, "B": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_DOUBLED_BACKSLASHES = re.compile(r"^(?:[A-Za-z]:\\\\|\\\\\\\\)")


def error(parser: str, message: str, line: int | None = None, column: int | None = None) -> ParseError:
    return ParseError(message, line=line, column=column, parser=parser)


def located_decode_error(exc: UnicodeDecodeError, decoded: Decoded, parser: str) -> ParseError:
    """The decode stage's message, with the line of the byte that does not decode.

    The text stream decodes in chunks, so the line being read when the error
    surfaces is not the bad byte's: the raw bytes are scanned again to find it.
    """
    failure = decode_error(exc, decoded.encoding, parser)
    decoder = codecs.getincrementaldecoder(decoded.encoding)("strict")
    breaks = 0
    with decoded.opener() as raw:
        raw.read(decoded.bom_length)
        while chunk := raw.read(1 << 20):
            try:
                text = decoder.decode(chunk)
            except UnicodeDecodeError as found:
                good = found.object[: found.start].decode(decoded.encoding, errors="replace")
                failure.line = breaks + len(_LINE_BREAK.findall(good)) + 1
                return failure
            breaks += len(_LINE_BREAK.findall(text))
    failure.line = breaks + 1
    return failure


def parse_size(text: str) -> int | None:
    """``4096``, ``4KiB``, ``64K``, ``1.95MiB``, ``8GB`` -> bytes (binary multiples, as DiskSpd means them)."""
    match = _SIZE.match(text.strip())
    if match is None:
        return None
    unit = (match.group(2) or "").upper()[:1]
    return round(float(match.group(1)) * _SIZE_FACTORS[unit])


def clean_path(path: str) -> str:
    """A target path as a subject: doubled backslashes (a JSON-escaped capture) undone.

    ``C:\\\\Users\\\\x.dat`` (a drive letter followed by two backslashes) or a
    UNC path written with four leading backslashes is an escaped copy; every
    run of backslashes is then halved. Anything else is kept as written.
    """
    path = path.strip()
    if _DOUBLED_BACKSLASHES.match(path) and all(len(run) % 2 == 0 for run in re.findall(r"\\+", path)):
        path = re.sub(r"\\\\", r"\\", path)
    if len(path) > MAX_SUBJECT:
        path = "\u2026" + path[-(MAX_SUBJECT - 1) :]
    return path

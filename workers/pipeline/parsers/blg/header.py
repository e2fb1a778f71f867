"""What a binary perfmon log (``.blg``, Windows Vista and later) looks like in its first bytes.

Since Windows Vista, Performance Monitor, ``logman`` and ``relog -f bin`` write
counter logs in the event-trace log layout (the real sample is
``perfmon_blg/txrx_BasicPerfCounters.blg`` in the shared fixtures, from a Data
Collector Set under ``C:\\PerfLogs\\Admin``):

* the file is a sequence of fixed-size buffers; the first four bytes are the
  buffer size, little-endian (``00 00 01 00``: 64 KiB);
* the first buffer holds the log-file header event, whose trace-header marker
  at byte 0x48 ends with the header type (1 = 32-bit, 2 = 64-bit session) and
  the flags byte 0xC0;
* that header carries the log file's own name in UTF-16LE, which for a counter
  log ends in ``.blg`` (``C:\\PerfLogs\\Admin\\Basic\\BasicPerfCounters02.blg``).

All three must hold: an ETW trace of another kind (``.etl``) has the first
two but not the name, and is not a counter log ``relog`` converts to CSV.
"""

from __future__ import annotations

_MARKER_TYPE = 0x4A
_MARKER_FLAGS = 0x4B
_HEADER_FLAGS = 0xC0
_MIN_BUFFER = 4 * 1024
_MAX_BUFFER = 64 * 1024 * 1024
_BLG_NAME = ".blg".encode("utf-16-le")


def is_binary_perfmon_log(head: bytes) -> bool:
    """True when ``head`` (the file's first bytes) is the start of a Vista+ ``.blg``."""
    if len(head) <= _MARKER_FLAGS:
        return False
    buffer_size = int.from_bytes(head[0:4], "little")
    if not _MIN_BUFFER <= buffer_size <= _MAX_BUFFER or buffer_size & (buffer_size - 1):
        return False
    if head[_MARKER_FLAGS] != _HEADER_FLAGS or head[_MARKER_TYPE] not in (1, 2):
        return False
    return _BLG_NAME in head[:buffer_size].lower()

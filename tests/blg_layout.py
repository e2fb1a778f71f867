"""A binary perfmon log's first buffer, built from the documented layout (``parsers.blg.header``).

Lets the ``.blg`` tests run without the real sample in the shared fixtures:
one 64 KiB buffer whose first four bytes give its size, the log-file header
event's marker (type 2, flags 0xC0) at 0x4A..0x4B, and the log file's own
name in UTF-16LE at 0x1CA, where the real Data Collector Set log has it.
"""

from __future__ import annotations

BUFFER = 64 * 1024
NAME_AT = 0x1CA


def blg_first_buffer(logged_as: str = "C:\\PerfLogs\\Admin\\Basic\\DataCollector01.blg") -> bytes:
    head = bytearray(BUFFER)
    head[0:4] = BUFFER.to_bytes(4, "little")
    head[0x4A] = 2  # 64-bit session
    head[0x4B] = 0xC0
    name = (logged_as + "\0").encode("utf-16-le")
    head[NAME_AT : NAME_AT + len(name)] = name
    return bytes(head)

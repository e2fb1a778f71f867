"""Linux servers' sysstat logs: ``sadf -j`` JSON and ``sadf -d`` CSV, as perfmon-named counters.

Samba admins record with sysstat (``sar``, saved daily under
``/var/log/sa``); ``sadf`` prints a recording as JSON (``-j``) or as
semicolon-separated sections (``-d``). Both give the same figures, and both
become counter series named like a Windows server's, so capacity, limits and
traces treat a Linux file server like a Windows one:

* CPU (``-u``, all and per CPU) -> ``Processor(_Total|N)``: ``% Processor
  Time`` = 100 - ``%idle``, ``% User Time``, ``% Privileged Time``, ``% Idle
  Time``, ``% IO Wait Time``, ``% Steal Time``;
* memory (``-r``) -> ``Memory\\Available MBytes`` = ``kbavail`` / 1024
  (``kbmemfree + kbbuffers + kbcached`` before sysstat 11.6), ``Free
  MBytes``, ``% Memory Used``;
* disks (``-d``) -> ``PhysicalDisk(<device>)``: ``Disk Transfers/sec``,
  ``Disk Read/Write Bytes/sec``, ``Disk Bytes/sec``, ``Avg. Disk
  sec/Transfer`` (``await`` in seconds), ``Avg. Disk Queue Length``
  (``aqu-sz``), ``% Idle Time`` = 100 - ``%util``; I/O totals (``-b``) ->
  ``PhysicalDisk(_Total)``;
* interfaces (``-n DEV``) -> ``Network Interface(<iface>)``: ``Bytes
  Received/Sent/Total/sec``, ``Packets Received/Sent/sec``, ``Packets/sec``;
* queue (``-q``) -> ``System``: ``Load Average 1/5/15 min``, ``Run Queue
  Length``, ``Blocked Tasks``.

The machine is the file's ``nodename`` (``-j``) or ``hostname`` column
(``-d``); times are sysstat's own (:mod:`.times`). ``source_path`` of each
series names the sysstat field it came from and, for inferred counters, the
arithmetic. sysstat does not record link speed, so no ``Current Bandwidth``
series comes from it. Details per field: ``docs/inputs.md``.
"""

from __future__ import annotations

import re
from typing import ClassVar

from workers.pipeline.decode import Decoded, Opener, decode, decode_error
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.sysstat.csv_input import HEADER, read_csv
from workers.pipeline.parsers.sysstat.json_input import read_json
from workers.pipeline.parsers.sysstat.table import gather
from workers.pipeline.parsers.sysstat.times import NAME
from workers.pipeline.records import Parsed

_JSON_START = re.compile(r'\s*\{\s*"sysstat"\s*:\s*\{')
# sadf -j output is read whole; a day of -A at one-minute samples is tens of MB.
MAX_JSON_CHARS = 512 * 1024 * 1024


def _is_json(text: str) -> bool:
    return _JSON_START.match(text.lstrip("\ufeff")) is not None


def _is_csv(text: str) -> bool:
    return text.lstrip("\ufeff \t\r\n").startswith(HEADER)


class SysstatParser:
    """sysstat recordings printed by ``sadf -j`` or ``sadf -d``."""

    name: ClassVar[str] = NAME
    binary: ClassVar[bool] = False

    def detect(self, head_bytes: bytes, head_text: str) -> int:
        if _is_json(head_text):
            return 95 if '"hosts"' in head_text else 80
        return 95 if _is_csv(head_text) else 0

    def parse(self, source: Decoded | Opener, context: ParseContext) -> Parsed:
        decoded = source if isinstance(source, Decoded) else decode(source)
        try:
            if _is_json(decoded.head_text):
                with decoded.open_text() as stream:
                    text = stream.read(MAX_JSON_CHARS + 1)
                if len(text) > MAX_JSON_CHARS:
                    raise ParseError(
                        f"the JSON is larger than {MAX_JSON_CHARS:,} characters; split the recording "
                        "(sadf -s/-e) or send sadf -d output, which is read line by line",
                        parser=NAME,
                    )
                table = gather(read_json(text, context))
            elif _is_csv(decoded.head_text):
                with decoded.open_text() as stream:
                    table = gather(read_csv(stream, context))
            else:
                raise ParseError(
                    'expected sadf -j output ({"sysstat": {"hosts": ...}}) or sadf -d output '
                    f"(starting with {HEADER!r})",
                    line=1,
                    parser=NAME,
                )
        except UnicodeDecodeError as exc:
            raise decode_error(exc, decoded.encoding, NAME) from None
        return Parsed(parser=NAME, tool="sysstat", counters=table)

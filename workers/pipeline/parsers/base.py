"""The parser protocol: what every parser is given and what it must provide.

A parser is one class with a ``name``, a ``detect`` that scores a file's head
(0 = not mine, 100 = certainly mine) from *content*, never from the file
name, and a ``parse`` that streams the file into a ``Parsed`` value. Binary
formats (``binary = True``) get the raw opener instead of text. The parsers
in use are listed, in order, in :mod:`workers.pipeline.registry`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Protocol

from workers.pipeline.decode import Decoded, Opener
from workers.pipeline.records import Parsed


@dataclass(frozen=True)
class ParseContext:
    """What the upload told us about the file, for parsers that need it."""

    filename: str = ""
    timezone: str | None = None  # IANA zone name, used when the file has no offset
    host: str = ""
    max_line_bytes: int = 16 * 1024 * 1024
    max_columns: int = 20_000
    extra: dict[str, str] = field(default_factory=dict)


class Parser(Protocol):
    name: ClassVar[str]
    binary: ClassVar[bool]

    def detect(self, head_bytes: bytes, head_text: str) -> int: ...

    def parse(self, source: Decoded | Opener, context: ParseContext) -> Parsed: ...

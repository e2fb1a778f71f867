"""The parser protocol and registry: a new format is one module plus its tests.

A parser module defines one class with a ``name``, a ``detect`` that scores a
file's head (0 = not mine, 100 = certainly mine) from *content*, never from
the file name, and a ``parse`` that streams the file into a ``Parsed`` value.
Binary formats (``binary = True``) get the raw opener instead of text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Protocol

from workers.pipeline.decode import Decoded, Opener
from workers.pipeline.errors import ParseError
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


_PARSERS: dict[str, Parser] = {}


def register(parser_class: type) -> type:
    """Class decorator: make a parser available to detection and by name."""
    instance: Parser = parser_class()
    if instance.name in _PARSERS:
        raise ValueError(f"parser {instance.name!r} registered twice")
    _PARSERS[instance.name] = instance
    return parser_class


def _load_builtin_parsers() -> None:
    # Importing the package registers every parser module it lists.
    import workers.pipeline.parsers  # noqa: F401


def all_parsers() -> dict[str, Parser]:
    _load_builtin_parsers()
    return dict(_PARSERS)


def get_parser(name: str) -> Parser:
    parsers = all_parsers()
    try:
        return parsers[name]
    except KeyError:
        known = ", ".join(sorted(parsers))
        raise ParseError(f"unknown kind {name!r}; expected 'auto' or one of: {known}") from None


def detect_parser(head_bytes: bytes, head_text: str) -> Parser:
    """Pick the parser that scores the file's head highest."""
    scored = sorted(
        ((parser.detect(head_bytes, head_text), name) for name, parser in all_parsers().items()),
        reverse=True,
    )
    if not scored or scored[0][0] <= 0:
        raise ParseError(
            "could not recognise this file's format from its content; "
            f"expected one of: {', '.join(sorted(all_parsers()))} (or pass kind=<parser>)",
            line=1,
        )
    return all_parsers()[scored[0][1]]

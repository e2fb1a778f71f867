"""What the JSON parsers share: finding a number that Python refuses to read.

Python will not turn more than ``sys.get_int_max_str_digits()`` digits (4,300 by
default) into an ``int`` -- a guard against quadratic-time conversion -- and the
``json`` module lets that ``ValueError`` escape without saying where the number
is. ``long_integer_error`` finds it, so the upload's error points at the line
and column like any other JSON error.
"""

from __future__ import annotations

import re
import sys

from workers.pipeline.errors import ParseError

# Strings are matched whole so digits inside them are skipped; a number is an
# integer (what ``int()`` reads) when it has neither a fraction nor an exponent.
_TOKEN = re.compile(
    r'"[^"\\]*(?:\\.[^"\\]*)*"|-?(?P<digits>[0-9]+)(?P<fraction>\.[0-9]+)?(?P<exponent>[eE][-+]?[0-9]+)?'
)


def line_column(text: str, offset: int) -> tuple[int, int]:
    """1-based ``(line, column)`` of ``offset`` in ``text``."""
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


def long_integer_offset(text: str, start: int = 0) -> int | None:
    """Offset of the first JSON integer from ``start`` on that has too many digits for ``int()``."""
    limit = sys.get_int_max_str_digits()
    if not limit:
        return None
    for match in _TOKEN.finditer(text, start):
        digits = match["digits"]
        if digits and len(digits) > limit and not match["fraction"] and not match["exponent"]:
            return match.start()
    return None


def long_integer_error(text: str, start: int, parser: str, prefix: str = "invalid JSON") -> ParseError:
    """The ``ParseError`` for a ``ValueError`` that decoding ``text`` from ``start`` raised."""
    limit = sys.get_int_max_str_digits()
    message = (
        f"{prefix}: a whole number has more than {limit:,} digits; "
        "expected a number of ordinary size (in decimal or exponent notation)"
    )
    offset = long_integer_offset(text, start)
    if offset is None:
        return ParseError(f"{prefix}: a number cannot be read", parser=parser)
    line, column = line_column(text, offset)
    return ParseError(message, line=line, column=column, parser=parser)

"""Robocopy's figures as the machine's culture printed them: grouping, decimal marks, binary units, h:mm:ss."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from workers.pipeline.errors import ParseError

PARSER = "robocopy"
UNIT_POWER = {"k": 1, "m": 2, "g": 3, "t": 4, "p": 5}
_GROUPING = re.compile(r"[ \u00a0\u202f'\u2019]")


def error(message: str, line: int | None = None) -> ParseError:
    return ParseError(message, line=line, parser=PARSER)


def show(text: str) -> str:
    text = text.strip()
    return repr(text if len(text) <= 60 else text[:57] + "...")


def decimal(text: str, *, fraction: bool) -> Decimal | None:
    """Culture-formatted number text -> Decimal, or None.

    ``fraction``: a lone ``.``/``,`` is the decimal separator (MB/min, a
    Bytes cell with a unit); otherwise a lone separator before exactly three
    digits groups thousands.
    """
    text = _GROUPING.sub(" ", text.strip())
    if not re.fullmatch(r"\d+(?:[ .,]\d+)*", text):
        return None
    marks = [(index, ch) for index, ch in enumerate(text) if ch in " .,"]
    decimal_at: int | None = None
    if marks and marks[-1][1] in ".,":
        last_index, last = marks[-1]
        others = {ch for _, ch in marks[:-1]}
        if last not in others and (others or fraction or len(text) - last_index - 1 != 3):
            decimal_at = last_index
    whole, frac = (text[:decimal_at], text[decimal_at + 1 :]) if decimal_at is not None else (text, "")
    groups = re.split(r"[ .,]", whole)
    if len(whole) > 30:  # no robocopy figure is that long; keeps floats finite
        return None
    if len(groups) > 1 and (len(groups[0]) > 3 or any(len(group) != 3 for group in groups[1:])):
        return None
    try:
        return Decimal("".join(groups) + (f".{frac}" if frac else ""))
    except InvalidOperation:  # pragma: no cover - the pattern above admits digits only
        return None


def seconds(text: str) -> Decimal:
    total = 0
    for part in text.split(":"):
        total = total * 60 + int(part)
    return Decimal(total)

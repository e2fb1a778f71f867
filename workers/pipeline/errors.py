"""The one error type a stage raises for bad input.

A ``ParseError`` is a *validation* failure: it is never retried and becomes the
upload's human-readable error (message, line, column, parser). Anything else
that escapes a stage is a bug or a transient failure and is handled by the
task's retry policy.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class ParseError(Exception):
    """Bad input, located as precisely as the format allows."""

    message: str
    line: int | None = None
    column: int | None = None
    parser: str | None = None

    def __str__(self) -> str:
        where = []
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.column is not None:
            where.append(f"column {self.column}")
        prefix = f"{', '.join(where)}: " if where else ""
        return f"{prefix}{self.message}"

    def as_dict(self) -> dict[str, object]:
        return {
            "message": self.message,
            "line": self.line,
            "column": self.column,
            "parser": self.parser,
        }

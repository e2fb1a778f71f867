"""Finding the fio JSON document in a file (console text and warnings may surround it), read whole."""

from __future__ import annotations

import json
import re
from typing import Any, TextIO

from workers.pipeline.errors import ParseError
from workers.pipeline.jsontext import long_integer_error

PARSER = "fio_json"
# A fio document is read whole (JSON needs it); beyond this it is refused.
MAX_TEXT_CHARS = 256 * 1024 * 1024
MESSAGE_LINES = 10
_JOBNAME = re.compile(r'"jobname"\s*:')
_OBJECT_START = re.compile(r'\{[ \t\n\r]*["}]')  # where a JSON object can start


def error(message: str, line: int | None = None, column: int | None = None) -> ParseError:
    return ParseError(message, line=line, column=column, parser=PARSER)


def read_all(stream: TextIO) -> str:
    text = stream.read(MAX_TEXT_CHARS + 1)
    if len(text) > MAX_TEXT_CHARS:
        raise error(
            f"fio JSON file is larger than {MAX_TEXT_CHARS // (1024 * 1024)} MiB of text; "
            "split it into several uploads"
        )
    return text


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


# --------------------------------------------------------------------------
# Finding the document


def _is_fio(value: Any) -> bool:
    return isinstance(value, dict) and "fio version" in value and ("jobs" in value or "client_stats" in value)


def find_document(text: str) -> tuple[dict[str, Any], int, int]:
    """``(document, start, end)`` of the last fio JSON object in ``text``."""
    if not text.strip():
        raise error("the file is empty; expected fio --output-format=json output", line=1)
    decoder = json.JSONDecoder()
    found: tuple[dict[str, Any], int, int] | None = None
    first_failure: json.JSONDecodeError | None = None
    other_object: int | None = None
    position = text.find("{")
    while position != -1:
        if found is None and first_failure is not None and not _OBJECT_START.match(text, position):
            # Cannot start an object, and its error would not be reported: skip it without
            # raw_decode, whose error costs a count of the lines before it (a run of
            # thousands of "{" would be quadratic).
            position = text.find("{", position + 1)
            continue
        try:
            value, end = decoder.raw_decode(text, position)
        except json.JSONDecodeError as exc:
            if found is not None:
                raise json_error(text, exc, "after the complete fio results") from None
            first_failure = first_failure or exc
            position = text.find("{", position + 1)
            continue
        except RecursionError:
            raise error("invalid JSON: nested too deeply", *where_in(text, position)) from None
        except ValueError:  # an integer too long for int()
            raise long_integer_error(text, position, PARSER, "invalid fio JSON") from None
        if _is_fio(value):
            found = (value, position, end)
        elif other_object is None and found is None:
            other_object = position
        position = text.find("{", end)
    if found is not None:
        return found
    if first_failure is not None:
        raise json_error(text, first_failure, "")
    if other_object is not None:
        raise error(
            'the JSON object here is not fio output: it has no "fio version" and "jobs" list '
            "(expected fio --output-format=json results)",
            *where_in(text, other_object),
        )
    raise error("no JSON object found; expected fio --output-format=json output", line=1)


def where_in(text: str, offset: int) -> tuple[int, int]:
    line_start = text.rfind("\n", 0, offset) + 1
    return line_of(text, offset), offset - line_start + 1


def json_error(text: str, exc: json.JSONDecodeError, where: str) -> ParseError:
    truncated = not text[exc.pos :].strip()
    hint = " (the file ends inside the JSON: it looks truncated)" if truncated else ""
    place = f" {where}" if where else ""
    return error(f"invalid fio JSON{place}: {exc.msg}{hint}", exc.lineno, exc.colno)

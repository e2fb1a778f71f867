"""A window on a timings JSON text stream: what the timings scanner reads instead of the whole text.

The scanner addresses the document by absolute character offsets, as if it
held the whole text; the window holds only the characters from the last
``release`` on, reading more from the stream when a lookup runs past its end
and dropping released text as it does. A value (a row, a key, a member of the
wrapper object) is decoded by ``json.JSONDecoder.raw_decode`` on the window,
so it must fit in it: one longer than ``MAX_VALUE_CHARS`` is refused with its
line and column instead of growing the window without bound. Line and column
are counted from the text the window has seen (newlines in dropped text are
counted as it is dropped), with the same rules as the ``json`` module's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TextIO

from workers.pipeline.errors import ParseError
from workers.pipeline.jsontext import long_integer_error, long_integer_offset

CHUNK_CHARS = 64 * 1024
# A single row or member decoded at once; rows are a few hundred characters.
MAX_VALUE_CHARS = 16 * 1024 * 1024
# A decode that stops this close to the window's end may have been cut short there (a number
# such as "1." or "1e" read as 1, an escape cut in two), so the window is extended and it is retried.
_MARGIN = 16
_WS = re.compile(r"[ \t\r\n]*")


class TextWindow:
    """The part of a text stream the scanner still needs, addressed by absolute offsets."""

    def __init__(self, stream: TextIO, parser: str) -> None:
        self._stream = stream
        self._parser = parser
        self._decoder = json.JSONDecoder()
        self._text = ""
        self._base = 0  # absolute offset of self._text[0]
        self._eof = False
        self._keep = 0  # text before this offset may be dropped on the next read
        self._origin = (0, 1, 0)  # self._base, its line, the offset its line starts at
        self._cursor = (0, 1, 0)  # the last offset located, likewise

    # ---------------------------------------------------------------- reading

    def release(self, offset: int) -> None:
        """Text before ``offset`` is no longer needed (it is dropped when more is read)."""
        self._keep = max(self._keep, offset)

    def _read_more(self, want: int = CHUNK_CHARS) -> bool:
        """Read at least ``want`` more characters (fewer at the end); False at the end."""
        if self._eof:
            return False
        chunk = self._stream.read(max(want, CHUNK_CHARS))
        if not chunk:
            self._eof = True
            return False
        drop = min(self._keep, self._base + len(self._text)) - self._base
        if drop > 0:
            self._advance_origin(drop)
            self._text = self._text[drop:] + chunk
            self._base += drop
        else:
            self._text += chunk
        return True

    def _advance_origin(self, drop: int) -> None:
        base, line, line_start = self._origin
        newlines = self._text.count("\n", 0, drop)
        if newlines:
            line += newlines
            line_start = self._base + self._text.rfind("\n", 0, drop) + 1
        self._origin = (base + drop, line, line_start)
        if self._cursor[0] < self._origin[0]:
            self._cursor = self._origin

    def _local(self, offset: int) -> int:
        assert offset >= self._base, "the window was released past an offset still in use"
        return offset - self._base

    def _has(self, offset: int) -> bool:
        """Whether the character at ``offset`` is in the window (reading up to it if need be)."""
        while offset - self._base >= len(self._text):
            if not self._read_more(offset - self._base - len(self._text) + 1):
                return False
        return True

    def char(self, offset: int) -> str:
        """The character at ``offset``; "" past the end of the text."""
        local = offset - self._base
        if 0 <= local < len(self._text):  # the common case, once per row: kept short
            return self._text[local]
        return self._text[self._local(offset)] if self._has(offset) else ""

    def at_end(self, offset: int) -> bool:
        return not self._has(offset)

    def skip(self, offset: int, release: bool = False) -> int:
        """The offset of the first character at or after ``offset`` that is not JSON whitespace.
        ``release``: text before ``offset`` is no longer needed, nor the whitespace skipped (a long
        run of it is then dropped as it is read rather than held)."""
        while True:
            if release:
                self.release(offset)
            if offset - self._base >= len(self._text) and not self._has(offset):
                return offset
            match = _WS.match(self._text, self._local(offset))
            assert match is not None
            offset = self._base + match.end()
            if match.end() < len(self._text):
                return offset

    # ---------------------------------------------------------------- positions

    def where(self, offset: int) -> tuple[int, int]:
        """1-based line and column of ``offset`` (at or after the window's start)."""
        start, line, line_start = self._cursor if offset >= self._cursor[0] else self._origin
        local_start, local = self._local(start), self._local(offset)
        newlines = self._text.count("\n", local_start, local)
        if newlines:
            line += newlines
            line_start = self._base + self._text.rfind("\n", local_start, local) + 1
        self._cursor = (offset, line, line_start)
        return line, offset - line_start + 1

    def error(self, message: str, offset: int) -> ParseError:
        line, column = self.where(offset)
        return ParseError(message, line=line, column=column, parser=self._parser)

    # ---------------------------------------------------------------- values

    def decode(self, offset: int) -> tuple[Any, int]:
        """The JSON value at ``offset`` and the offset after it; errors name the line and column."""
        while True:
            local = self._local(offset)
            try:
                value, end = self._decoder.raw_decode(self._text, local)
            except json.JSONDecodeError as exc:
                if self._cut_short(local, exc.pos, exc.msg):
                    continue
                raise self.error(f"invalid JSON: {exc.msg}", self._base + exc.pos) from None
            except ValueError:  # an integer too long for int()
                if self._cut_short(local, len(self._text), ""):
                    continue
                raise self._long_integer(local) from None
            except RecursionError:
                raise self.error("invalid JSON: nested too deeply", offset) from None
            if self._cut_short(local, end, ""):
                continue
            return value, self._base + end

    def _cut_short(self, local: int, stop: int, message: str) -> bool:
        """Whether a decode from ``local`` that stopped at ``stop`` may have met the window's end
        rather than the value's; if so the window is extended (True) for a retry."""
        if self._eof or (stop + _MARGIN < len(self._text) and not message.startswith("Unterminated")):
            return False
        if len(self._text) - local > MAX_VALUE_CHARS:
            raise self.error(
                f"a JSON value longer than {MAX_VALUE_CHARS // (1024 * 1024)} MiB of text; "
                "a timing row is a small object",
                self._base + local,
            )
        return self._read_more(len(self._text) - local)

    def _long_integer(self, local: int) -> ParseError:
        error = long_integer_error(self._text, local, self._parser)
        found = long_integer_offset(self._text, local)
        if found is None:
            return error
        line, column = self.where(self._base + found)
        return ParseError(error.message, line=line, column=column, parser=self._parser)


@dataclass(frozen=True)
class Node:
    """A JSON value with the offset it starts at (and its children's)."""

    value: Any
    offset: int
    members: dict[str, Node] | None = None
    position: tuple[int, int] | None = None  # its line and column, when located as it was read


class JsonScanner:
    """Walks the outer objects and arrays itself so rows keep their positions.

    Rows (and any value below the outer containers) are decoded one at a time
    by the window -- C speed -- and dropped once checked, so a file of millions
    of tiny rows never holds them, nor its whole text. A row's own members are
    located only when the row turns out to be bad (it is still in the window:
    text is released only when the next item is read).
    """

    def __init__(self, stream: TextIO, parser: str) -> None:
        self.window = TextWindow(stream, parser)

    def where(self, offset: int) -> tuple[int, int]:
        return self.window.where(offset)

    def skip(self, index: int, release: bool = False) -> int:
        return self.window.skip(index, release)

    def char(self, index: int) -> str:
        return self.window.char(index)

    def at_end(self, index: int) -> bool:
        return self.window.at_end(index)

    def fail(self, message: str, offset: int) -> ParseError:
        return self.window.error(f"invalid JSON: {message}", offset)

    def node(self, index: int, located: int = 0) -> tuple[Node, int]:
        index = self.skip(index)
        if located and self.char(index) == "{":
            return self._object(index, located)
        value, end = self.window.decode(index)
        return Node(value, index), end

    def _members(self, start: int, read: Callable[[str, int], int], release: bool = False) -> int:
        """Walk the object at ``start``: ``read(key, offset of its value)`` takes each value and
        returns the offset after it. Returns the offset after the object. ``release``: the text
        read is not needed again (``read`` keeps what it needs)."""
        index = self.skip(start + 1, release)
        if self.char(index) != "}":
            while True:
                if self.char(index) != '"':
                    raise self.fail("Expecting property name enclosed in double quotes", index)
                key, index = self.window.decode(index)
                index = self.skip(index, release)
                if self.char(index) != ":":
                    raise self.fail("Expecting ':' delimiter", index)
                index = self.skip(read(key, index + 1), release)
                char = self.char(index)
                if char == "}":
                    break
                if char != ",":
                    raise self.fail("Expecting ',' delimiter", index)
                index = self.skip(index + 1, release)
        return index + 1

    def _object(self, start: int, located: int) -> tuple[Node, int]:
        members: dict[str, Node] = {}

        def read(key: str, index: int) -> int:
            members[key], after = self.node(index, located - 1)
            return after

        end = self._members(start, read)
        value = {key: child.value for key, child in members.items()}
        return Node(value, start, members=members), end

    def elements(self, start: int, end: list[int] | None = None) -> Iterator[Node]:
        """The items of the array at ``start``, decoded one at a time; ``end`` gets the offset after
        it. Text before an item is released when the next one is read."""
        index = self.skip(start + 1, release=True)
        if self.char(index) != "]":
            while True:
                child, index = self.node(index)
                yield child
                index = self.skip(index, release=True)
                char = self.char(index)
                if char == "]":
                    break
                if char != ",":
                    raise self.fail("Expecting ',' delimiter", index)
                index = self.skip(index + 1, release=True)
        if end is not None:
            end.append(index + 1)

    def skip_array(self, start: int) -> int:
        """Check the array at ``start`` item by item (nothing kept); the offset after it."""
        end: list[int] = []
        for _ in self.elements(start, end):
            pass
        return end[0]

    def wrapper(self, start: int) -> tuple[dict[str, Node], int | None, int]:
        """The object at ``start`` with a ``"timings"`` list checked but not kept.

        Returns its other members (located: their text is not kept), the offset
        of the ``timings`` list (None without one) and the offset after the object.
        """
        members: dict[str, Node] = {}
        timings: int | None = None

        def read(key: str, index: int) -> int:
            nonlocal timings
            index = self.skip(index, release=True)
            if key == "timings" and self.char(index) == "[":
                members.pop(key, None)
                timings = index
                return self.skip_array(index)
            if key == "timings":
                timings = None
            child, after = self.node(index)
            members[key] = Node(child.value, index, position=self.where(index))
            return after

        end = self._members(start, read, release=True)
        return members, timings, end

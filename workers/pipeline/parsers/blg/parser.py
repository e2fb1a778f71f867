"""Binary perfmon logs (``.blg``): recognised, and refused with the command that converts them.

Headroom reads perfmon logs as CSV. A ``.blg`` -- what a Data Collector Set
writes by default -- is recognised by its header (:mod:`.header`) and the
upload fails with a validation error that gives the exact ``relog`` command
to run on Windows, with the uploaded file's name::

    relog DataCollector01.blg -f csv -o DataCollector01.csv

The agent (``headroom-agent upload x.blg``) runs that command itself on
Windows and sends the CSV instead.
"""

from __future__ import annotations

from pathlib import PureWindowsPath
from typing import ClassVar

from workers.pipeline.decode import Decoded, Opener
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.blg.header import is_binary_perfmon_log
from workers.pipeline.records import Parsed

NAME = "blg"


def _argument(name: str) -> str:
    """A file name as a cmd.exe argument: quoted when it holds a space."""
    return f'"{name}"' if any(char in name for char in " \t&()^") else name


def relog_command(filename: str) -> str:
    """``relog <file> -f csv -o <file stem>.csv`` for the uploaded file (``in.blg`` when unnamed)."""
    name = PureWindowsPath(filename).name or "in.blg"
    stem = PureWindowsPath(name).stem if name.lower().endswith(".blg") else name
    return f"relog {_argument(name)} -f csv -o {_argument(stem + '.csv')}"


class BlgParser:
    """Binary perfmon logs: detected, never parsed; the error says how to convert them."""

    name: ClassVar[str] = NAME
    binary: ClassVar[bool] = True

    def detect(self, head_bytes: bytes, head_text: str) -> int:
        return 100 if is_binary_perfmon_log(head_bytes) else 0

    def parse(self, source: Decoded | Opener, context: ParseContext) -> Parsed:
        command = relog_command(context.filename)
        output = command.rsplit(" -o ", 1)[1]
        raise ParseError(
            "this is a binary perfmon log (.blg), which Headroom cannot read; convert it to CSV "
            f"on Windows with `{command}` and upload {output} instead "
            "(headroom-agent upload does this itself on Windows)",
            line=None,
            parser=NAME,
        )

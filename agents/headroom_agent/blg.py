"""Binary perfmon logs (``.blg``): converted to CSV with ``relog`` on Windows, explained elsewhere.

The server reads perfmon logs as CSV. On Windows ``relog`` (part of every
Windows since XP) converts a ``.blg`` into a temporary CSV, which is uploaded
and then removed; on other systems the agent says which command to run on
Windows. A file is a ``.blg`` by its header (the same rule as the server's
``blg`` parser), not by its name.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_HEAD = 64 * 1024
_BLG_NAME = ".blg".encode("utf-16-le")


def is_blg(path: Path) -> bool:
    """True when the file starts like a Vista+ binary perfmon log."""
    with path.open("rb") as handle:
        head = handle.read(_HEAD)
    if len(head) <= 0x4B:
        return False
    size = int.from_bytes(head[0:4], "little")
    if not 4096 <= size <= 64 * 1024 * 1024 or size & (size - 1):
        return False
    return head[0x4B] == 0xC0 and head[0x4A] in (1, 2) and _BLG_NAME in head[:size].lower()


def relog_command(path: Path) -> str:
    """What to run on Windows: ``relog x.blg -f csv -o x.csv``."""

    def arg(name: str) -> str:
        return f'"{name}"' if " " in name else name

    return f"relog {arg(path.name)} -f csv -o {arg(path.stem + '.csv')}"


def on_windows() -> bool:
    return sys.platform == "win32"


class RelogFailed(Exception):
    """relog is missing or did not write the CSV."""


@contextmanager
def converted(path: Path) -> Iterator[Path]:
    """The CSV ``relog`` makes of ``path``, in a temporary folder removed on exit."""
    with tempfile.TemporaryDirectory(prefix="headroom-relog-") as folder:
        target = Path(folder) / (path.stem + ".csv")
        try:
            done = subprocess.run(
                ["relog", str(path), "-f", "csv", "-o", str(target)],
                capture_output=True,
                text=True,
                check=False,
            )
        except OSError as exc:
            raise RelogFailed(
                f"cannot run relog ({exc}); convert it by hand: {relog_command(path)}"
            ) from None
        if done.returncode != 0 or not target.is_file():
            detail = (done.stderr or done.stdout).strip().splitlines()
            raise RelogFailed(
                f"relog failed (exit {done.returncode}{': ' + detail[-1] if detail else ''}); "
                f"convert it by hand: {relog_command(path)}"
            )
        yield target

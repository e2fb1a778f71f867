"""A one-line progress bar on stderr for large files (compressing, then sending)."""

from __future__ import annotations

import sys
import time
from typing import TextIO

# Below this size a file is done before a bar would be worth looking at.
MIN_BYTES = 4 * 1024 * 1024
WIDTH = 24


def wanted(setting: bool | None, size: int, stream: TextIO | None = None) -> bool:
    """Show a bar? ``setting`` True/False forces it; None means "large file on a terminal"."""
    if setting is not None:
        return setting
    stream = stream or sys.stderr
    return size >= MIN_BYTES and stream.isatty()


def human_bytes(count: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if abs(count) < 1024 or unit == "GB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024
    return f"{count:.1f} GB"


class Progress:
    """``label [#####.......]  42%  12.0 MB / 28.5 MB  9.8 MB/s``, redrawn at most 10 times a second."""

    def __init__(self, label: str, total: int, enabled: bool, stream: TextIO | None = None) -> None:
        self.label = label
        self.total = max(total, 1)
        self.enabled = enabled
        self.stream = stream or sys.stderr
        self.done = 0
        self.started = time.monotonic()
        self._drawn = 0.0

    def advance(self, count: int) -> None:
        self.done += count
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._drawn >= 0.1 or self.done >= self.total:
            self._drawn = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        fraction = min(self.done / self.total, 1.0)
        filled = int(fraction * WIDTH)
        rate = self.done / max(now - self.started, 1e-6)
        self.stream.write(
            f"\r{self.label} [{'#' * filled}{'.' * (WIDTH - filled)}] {fraction * 100:3.0f}%  "
            f"{human_bytes(self.done)} / {human_bytes(self.total)}  {human_bytes(rate)}/s  "
        )
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self._draw(time.monotonic())
            self.stream.write("\n")
            self.stream.flush()

"""Finding top-level windows by title (Windows only), for ``time --until-window``.

The app-launch study measures from process start until the application's
main window is visible, not until the process exits. ``EnumWindows`` via
ctypes lists visible top-level windows; a window counts only if it was not
already there before the launch, so a second copy of the app left open does
not end the measurement early. On other systems ``SUPPORTED`` is False and
the functions raise ``WindowsOnly``.
"""

from __future__ import annotations

import sys


class WindowsOnly(Exception):
    """Raised when a window function is used on a system without Win32 windows."""


MESSAGE = (
    "--until-window is Windows-only: it waits for a visible top-level window whose title contains "
    "the text; on this system time the command until it exits instead (drop --until-window)"
)

if sys.platform == "win32":
    import ctypes
    from ctypes import wintypes

    SUPPORTED = True
    WM_CLOSE = 0x0010
    _user32 = ctypes.WinDLL("user32", use_last_error=True)
    _EnumWindowsProc = ctypes.WINFUNCTYPE(wintypes.BOOL, wintypes.HWND, wintypes.LPARAM)

    def visible_windows(title: str) -> set[int]:
        """Handles of visible top-level windows whose title contains ``title`` (any case)."""
        needle = title.casefold()
        found: set[int] = set()

        def visit(hwnd: int, _lparam: int) -> bool:
            if hwnd and _user32.IsWindowVisible(hwnd):
                length = _user32.GetWindowTextLengthW(hwnd)
                if length:
                    buffer = ctypes.create_unicode_buffer(length + 1)
                    _user32.GetWindowTextW(hwnd, buffer, length + 1)
                    if needle in buffer.value.casefold():
                        found.add(int(hwnd))
            return True

        _user32.EnumWindows(_EnumWindowsProc(visit), 0)
        return found

    def close_window(hwnd: int) -> None:
        """Ask a window to close, as its close button would."""
        _user32.PostMessageW(wintypes.HWND(hwnd), WM_CLOSE, 0, 0)

else:
    SUPPORTED = False

    def visible_windows(title: str) -> set[int]:
        raise WindowsOnly(MESSAGE)

    def close_window(hwnd: int) -> None:
        raise WindowsOnly(MESSAGE)

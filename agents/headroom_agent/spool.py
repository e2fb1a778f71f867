"""The offline spool: every request is written here first, exactly as it will be sent.

Writing first and sending second makes three promises cheap to keep: a retry
sends byte-identical data (the server recognises repeated bytes, so a retry
after a lost answer is harmless), nothing is lost if the server is away, and
nothing is lost if the agent or the machine dies mid-send. Layout::

    items/<id>.req      one request: a JSON envelope line, then the exact body bytes
    items/<id>.state    attempts, next try, last error (absent until a try failed)
    rejected/<id>.req   requests the server refused for good, kept with their .state
    tmp/                requests being written; moved into items/ atomically
    lock                held (an OS file lock) by the process delivering items

Ids sort by creation time, so delivery is first in, first out. The
``Authorization`` header is never stored: it is added at send time, so a
corrected token applies to everything already spooled.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

ENVELOPE_VERSION = 1
MAX_ENVELOPE_BYTES = 1024 * 1024
# Backoff after failed tries: 5 s, 10 s, 20 s ... capped at 15 minutes, with jitter
# so that many agents do not return at the same instant after an outage.
BACKOFF_FIRST = 5.0
BACKOFF_MAX = 900.0
STALE_TMP_SECONDS = 24 * 3600

_counter = itertools.count()


class SpoolError(Exception):
    """The spool directory cannot be used (permissions, disk full, ...)."""


@dataclass
class Envelope:
    """How to send a spooled body: method, API path, headers, and what it is."""

    kind: str  # upload | samples | timings | steps
    method: str
    path: str
    headers: dict[str, str]
    label: str
    created: str
    order_key: str = ""  # items sharing a key are delivered strictly in order
    source: str = ""  # uploads: the file the body was made from
    run_request: dict[str, Any] | None = None  # steps: the POST /api/v1/runs body naming the run

    def encode(self) -> bytes:
        value = {"version": ENVELOPE_VERSION, **asdict(self)}
        return json.dumps(value, separators=(",", ":"), ensure_ascii=True).encode("ascii") + b"\n"

    @classmethod
    def decode(cls, line: bytes) -> Envelope:
        value = json.loads(line.decode("ascii"))
        if not isinstance(value, dict) or value.get("version") != ENVELOPE_VERSION:
            raise ValueError("unknown envelope version")
        known = set(cls.__dataclass_fields__)
        return cls(**{key: val for key, val in value.items() if key in known})


@dataclass
class ItemState:
    """Delivery history of one item."""

    attempts: int = 0
    next_try: float = 0.0
    last_error: str = ""


@dataclass
class Item:
    """One spooled request."""

    id: str
    path: Path
    envelope: Envelope
    body_offset: int
    body_size: int
    state: ItemState = field(default_factory=ItemState)

    def due(self, now: float) -> bool:
        return self.state.next_try <= now

    def open_body(self) -> IO[bytes]:
        handle = open(self.path, "rb")  # noqa: SIM115  (returned to the caller, who closes it)
        handle.seek(self.body_offset)
        return handle


def backoff_seconds(attempts: int, jitter: float = 0.2) -> float:
    """Seconds to wait after ``attempts`` failed tries."""
    base: float = min(BACKOFF_FIRST * (2.0 ** max(attempts - 1, 0)), BACKOFF_MAX)
    return base * random.uniform(1 - jitter, 1 + jitter)


def _fsync_dir(path: Path) -> None:
    """Make a rename durable (POSIX; Windows has no directory handles for this)."""
    if sys.platform == "win32":
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_atomic(path: Path, data: bytes) -> None:
    temporary = path.with_name(path.name + ".part")
    with open(temporary, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


class Spool:
    """A spool directory (created on first use)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.items_dir = root / "items"
        self.rejected_dir = root / "rejected"
        self.tmp_dir = root / "tmp"

    def _ensure(self) -> None:
        try:
            for directory in (self.items_dir, self.rejected_dir, self.tmp_dir):
                directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SpoolError(
                f"cannot create the spool directory {self.root}: {exc.strerror or exc}"
            ) from None

    def add(self, envelope: Envelope, write_body: Callable[[IO[bytes]], None]) -> Item:
        """Write a request durably and atomically; ``write_body`` streams the body into the file."""
        self._ensure()
        item_id = f"{time.time_ns():019d}-{os.getpid()}-{next(_counter):04d}"
        temporary = self.tmp_dir / f"{item_id}.req"
        header = envelope.encode()
        try:
            with open(temporary, "wb") as handle:
                handle.write(header)
                write_body(handle)
                handle.flush()
                os.fsync(handle.fileno())
                size = handle.tell() - len(header)
            final = self.items_dir / temporary.name
            os.replace(temporary, final)
            _fsync_dir(self.items_dir)
        except OSError as exc:
            temporary.unlink(missing_ok=True)
            raise SpoolError(f"cannot write to the spool {self.root}: {exc.strerror or exc}") from None
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
        return Item(item_id, final, envelope, len(header), size)

    def add_bytes(self, envelope: Envelope, body: bytes) -> Item:
        """``add`` for a body already in memory (batches)."""

        def write(handle: IO[bytes]) -> None:
            handle.write(body)

        return self.add(envelope, write)

    def _read(self, path: Path) -> Item:
        with open(path, "rb") as handle:
            line = handle.readline(MAX_ENVELOPE_BYTES)
            end = handle.seek(0, os.SEEK_END)
        envelope = Envelope.decode(line)
        state = ItemState()
        state_path = path.with_suffix(".state")
        try:
            state = ItemState(**json.loads(state_path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            pass
        except (ValueError, TypeError):
            state = ItemState()
        return Item(path.stem, path, envelope, len(line), end - len(line), state)

    def _list(self, directory: Path) -> list[Item]:
        if not directory.is_dir():
            return []
        found = []
        for path in sorted(directory.glob("*.req")):
            try:
                found.append(self._read(path))
            except FileNotFoundError:
                continue  # delivered by another process meanwhile
            except (OSError, ValueError, TypeError) as exc:
                if directory == self.items_dir:
                    self._quarantine(path, f"unreadable spool item: {exc}")
        return found

    def pending(self) -> list[Item]:
        """Items waiting for delivery, oldest first."""
        return self._list(self.items_dir)

    def rejected(self) -> list[Item]:
        """Items the server refused for good, oldest first."""
        return self._list(self.rejected_dir)

    def count(self) -> int:
        if not self.items_dir.is_dir():
            return 0
        return sum(1 for _ in self.items_dir.glob("*.req"))

    def remove(self, item: Item) -> None:
        """Forget a delivered item."""
        item.path.unlink(missing_ok=True)
        item.path.with_suffix(".state").unlink(missing_ok=True)

    def postpone(self, item: Item, error: str, now: float | None = None) -> None:
        """Record a failed try; the item becomes due again after a backoff."""
        now = time.time() if now is None else now
        attempts = item.state.attempts + 1
        item.state = ItemState(attempts, now + backoff_seconds(attempts), error)
        _write_atomic(item.path.with_suffix(".state"), json.dumps(asdict(item.state)).encode("utf-8"))

    def reject(self, item: Item, error: str) -> Path:
        """Move an item the server refused for good to ``rejected/``, with the reason."""
        self._ensure()
        item.state = ItemState(item.state.attempts + 1, 0.0, error)
        target = self.rejected_dir / item.path.name
        _write_atomic(target.with_suffix(".state"), json.dumps(asdict(item.state)).encode("utf-8"))
        os.replace(item.path, target)
        item.path.with_suffix(".state").unlink(missing_ok=True)
        item.path = target
        return target

    def _quarantine(self, path: Path, error: str) -> None:
        self.rejected_dir.mkdir(parents=True, exist_ok=True)
        target = self.rejected_dir / path.name
        _write_atomic(target.with_suffix(".state"), json.dumps(asdict(ItemState(0, 0.0, error))).encode())
        os.replace(path, target)

    def restore_rejected(self) -> int:
        """Move every rejected item back to the queue (after fixing what was wrong)."""
        count = 0
        for item in self.rejected():
            os.replace(item.path, self.items_dir / item.path.name)
            item.path.with_suffix(".state").unlink(missing_ok=True)
            count += 1
        return count

    def clean_tmp(self, now: float | None = None) -> None:
        """Delete half-written requests left by a crash (old enough not to be in progress)."""
        if not self.tmp_dir.is_dir():
            return
        now = time.time() if now is None else now
        for path in self.tmp_dir.iterdir():
            try:
                if now - path.stat().st_mtime > STALE_TMP_SECONDS:
                    path.unlink()
            except OSError:
                continue

    def lock(self) -> SpoolLock:
        self._ensure()
        return SpoolLock(self.root / "lock")


class SpoolLock:
    """An exclusive OS file lock: released by the OS if the holder crashes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self, timeout: float = 0.0) -> bool:
        """Try to take the lock for up to ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        while True:
            if _try_lock(fd):
                self._fd = fd
                return True
            if time.monotonic() >= deadline:
                os.close(fd)
                return False
            time.sleep(0.1)

    def release(self) -> None:
        if self._fd is not None:
            _unlock(self._fd)
            os.close(self._fd)
            self._fd = None


if sys.platform == "win32":
    import msvcrt

    def _try_lock(fd: int) -> bool:
        os.lseek(fd, 0, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)

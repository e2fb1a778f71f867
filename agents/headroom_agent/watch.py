"""``headroom-agent watch DIR``: upload result files as they appear, each once.

The directory is polled (``--interval``, default 5 s): a portable choice
that works the same on a local disk, an SMB share and an old VM, and costs
one directory listing per interval. A file is taken once it has stopped
changing for ``--settle`` seconds (FSCT and DiskSpd write results over time).
A state file remembers every file handed over -- by path, size and
modification time -- so a restarted watcher does not upload anything twice;
a file that later changes is new content and is uploaded again (the server
also recognises identical bytes). Files go through the spool like any
upload, so a server outage only delays them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from headroom_agent.client import Verdict
from headroom_agent.context import EXIT_FAILED, EXIT_OK, EXIT_SPOOLED, EXIT_USAGE, Context, combine
from headroom_agent.outbox import FlushResult, describe_answer, report
from headroom_agent.spool import Item
from headroom_agent.upload import UploadMeta, meta_from, prepare

STATE_VERSION = 1


@dataclass(frozen=True)
class Seen:
    """A file's identity for "already handled": size and modification time."""

    size: int
    mtime_ns: int


class WatchState:
    """The JSON state file: ``{"files": {path: {size, mtime_ns, outcome, upload, at}}}``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.files: dict[str, dict[str, Any]] = {}
        try:
            value = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(value, dict) and isinstance(value.get("files"), dict):
                self.files = value["files"]
        except FileNotFoundError:
            pass
        except (OSError, ValueError) as exc:
            raise OSError(f"cannot read the watch state {path}: {exc}") from None

    def handled(self, key: str, seen: Seen) -> bool:
        entry = self.files.get(key) or {}
        return bool(entry.get("size") == seen.size and entry.get("mtime_ns") == seen.mtime_ns)

    def record(self, key: str, seen: Seen, outcome: str, upload: Any = None) -> None:
        self.files[key] = {
            "size": seen.size,
            "mtime_ns": seen.mtime_ns,
            "outcome": outcome,
            "upload": upload,
            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        self.save()

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(self.path.name + ".tmp")
        data = json.dumps({"version": STATE_VERSION, "files": self.files}, indent=1, sort_keys=True)
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, self.path)


def default_state_path(data_dir: Path, directory: Path, pattern: str, recursive: bool) -> Path:
    """One state file per watched directory and pattern, in the agent's data dir."""
    key = f"{directory.resolve()}|{pattern}|{recursive}".encode()
    return data_dir / "watch" / f"{directory.name or 'root'}-{hashlib.sha256(key).hexdigest()[:12]}.json"


def scan(directory: Path, pattern: str, recursive: bool) -> dict[str, tuple[Path, Seen, float]]:
    """Matching regular files: ``{key: (path, identity, mtime)}``."""
    found: dict[str, tuple[Path, Seen, float]] = {}
    matches = directory.rglob(pattern) if recursive else directory.glob(pattern)
    for path in matches:
        try:
            info = path.stat()
        except OSError:
            continue
        if not path.is_file():
            continue
        key = str(path.resolve())
        found[key] = (path, Seen(info.st_size, info.st_mtime_ns), info.st_mtime)
    return found


class Watcher:
    """One polling loop over a directory."""

    def __init__(self, args: argparse.Namespace, ctx: Context, meta: UploadMeta, state: WatchState) -> None:
        self.args = args
        self.ctx = ctx
        self.meta = meta
        self.state = state
        self.directory = Path(args.directory)
        self.previous: dict[str, Seen] = {}
        self.codes: list[int] = []

    def ready(self, key: str, seen: Seen, mtime: float, now: float) -> bool:
        """Unchanged since the last scan and untouched for ``--settle`` seconds."""
        stable = self.previous.get(key) == seen or bool(self.args.once)
        settle: float = self.args.settle
        return stable and now - mtime >= settle

    def poll(self) -> int:
        """One scan: upload what is ready. Returns how many files still wait to settle."""
        now = time.time()
        files = scan(self.directory, self.args.pattern, self.args.recursive)
        waiting = 0
        batch: list[tuple[str, Seen, Item]] = []
        for key, (path, seen, mtime) in sorted(files.items()):
            if self.state.handled(key, seen):
                continue
            if not self.ready(key, seen, mtime, now):
                waiting += 1
                continue
            try:
                item = prepare(self.ctx.spool, path, self.meta, False)
            except OSError as exc:
                print(f"{path}: cannot read it ({exc}); will try again", file=self.ctx.err)
                waiting += 1
                continue
            batch.append((key, seen, item))
        self.previous = {key: seen for key, (_, seen, _) in files.items()}
        result = self.ctx.outbox.flush()
        report(result, self.ctx.spool, [item for _, _, item in batch], self.ctx.err)
        for key, seen, item in batch:
            self.settle(key, seen, item, result)
        return waiting

    def settle(self, key: str, seen: Seen, item: Item, result: FlushResult) -> None:
        delivery = result.of(item)
        label = key
        if delivery is None or delivery.verdict in (Verdict.RETRY, Verdict.AUTH):
            self.state.record(key, seen, "spooled")
            print(f"spooled {label} (kept in {self.ctx.spool.items_dir})", file=self.ctx.out)
            self.codes.append(EXIT_SPOOLED)
        elif delivery.verdict is Verdict.REJECTED:
            self.state.record(key, seen, "rejected")
            print(f"{label}: rejected by the server: {delivery.message}", file=self.ctx.err)
            self.codes.append(EXIT_FAILED)
        else:
            answer = delivery.answer or {}
            self.state.record(key, seen, "delivered", answer.get("id"))
            print(f"{describe_answer(answer)} {label}", file=self.ctx.out)
            self.codes.append(EXIT_OK)


def run(args: argparse.Namespace, ctx: Context) -> int:
    """``headroom-agent watch DIR --pattern GLOB``"""
    directory = Path(args.directory)
    if not directory.is_dir():
        print(f"{directory}: not a directory", file=ctx.err)
        return EXIT_USAGE
    if args.interval <= 0 or args.settle < 0:
        print("--interval must be positive and --settle 0 or more", file=ctx.err)
        return EXIT_USAGE
    meta = meta_from(args, ctx)
    state_path = (
        Path(args.state)
        if args.state
        else default_state_path(ctx.settings.data_dir, directory, args.pattern, args.recursive)
    )
    try:
        state = WatchState(state_path)
    except OSError as exc:
        print(str(exc), file=ctx.err)
        return EXIT_USAGE
    if args.skip_existing:
        for key, (_, seen, _) in scan(directory, args.pattern, args.recursive).items():
            if not state.handled(key, seen):
                state.record(key, seen, "skipped")
    watcher = Watcher(args, ctx, meta, state)
    if not args.once:
        print(
            f"watching {directory.resolve()} for {args.pattern!r} every {args.interval:g} s "
            f"(state {state_path}); Ctrl+C stops",
            file=ctx.err,
        )
    try:
        while True:
            waiting = watcher.poll()
            if args.once and not waiting:
                break
            time.sleep(args.interval if not args.once else min(args.interval, max(args.settle, 0.2)))
    except KeyboardInterrupt:
        print("stopped", file=ctx.err)
    return combine(*watcher.codes) if args.once else EXIT_OK

"""``headroom-agent time``: time a command, repeatedly, and upload the timings.

A repetition runs from process start to process exit (``perf_counter``, so
clock changes do not distort it), or with ``--until-window TITLE`` (Windows
only) until a new visible window with that title appears -- the
application-launch measurement. ``started_at`` is the UTC wall-clock time of
the launch. Repetitions are numbered 1..N; one whose command fails is
reported and not recorded. ``--users N`` sends each row's ``users`` (the
active sessions while it ran), which places it on capacity's user axis
instead of the load step its time falls in. The batch goes to ``POST /api/v1/timings``
through the spool like everything else, after all repetitions have run, so
no upload competes with the thing being timed.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone

from headroom_agent import windows
from headroom_agent.client import Verdict
from headroom_agent.config import ConfigError, parse_pairs
from headroom_agent.context import EXIT_FAILED, EXIT_OK, EXIT_USAGE, Context, combine, spool_code
from headroom_agent.outbox import report
from headroom_agent.spool import Envelope

WINDOW_POLL_SECONDS = 0.01
CLOSE_WAIT_SECONDS = 10.0


class TimingError(Exception):
    """A repetition could not be measured (command not found, window never appeared)."""


@dataclass
class Timing:
    """One timing row as ``POST /api/v1/timings`` takes it."""

    name: str
    started_at: str
    duration_ms: float
    repetition: int
    tags: dict[str, str] = field(default_factory=dict)
    users: int | None = None  # active user sessions while it ran (``--users``); omitted when unknown


@dataclass
class Measured:
    started: datetime
    duration_ms: float
    exit_code: int


def iso_utc(moment: datetime) -> str:
    """``2024-05-01T10:00:00.123456Z``"""
    return moment.astimezone(timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _start(command: Sequence[str]) -> subprocess.Popen[bytes]:
    try:
        return subprocess.Popen(list(command))
    except OSError as exc:
        raise TimingError(f"cannot start {command[0]!r}: {exc.strerror or exc}") from None


def measure(
    command: Sequence[str],
    until_window: str | None = None,
    window_timeout: float = 120.0,
    leave_running: bool = False,
) -> Measured:
    """Run ``command`` once and time it."""
    if until_window is None:
        started = datetime.now(timezone.utc)
        begin = time.perf_counter()
        process = _start(command)
        code = process.wait()
        return Measured(started, (time.perf_counter() - begin) * 1000.0, code)

    before = windows.visible_windows(until_window)
    started = datetime.now(timezone.utc)
    begin = time.perf_counter()
    process = _start(command)
    while True:
        new = windows.visible_windows(until_window) - before
        elapsed = time.perf_counter() - begin
        if new:
            break
        if elapsed > window_timeout:
            if not leave_running and process.poll() is None:
                process.kill()
            raise TimingError(f"no window titled {until_window!r} appeared within {window_timeout:g} s")
        time.sleep(WINDOW_POLL_SECONDS)
    duration = elapsed * 1000.0
    if not leave_running:
        for hwnd in new:
            windows.close_window(hwnd)
        try:
            process.wait(CLOSE_WAIT_SECONDS)
        except subprocess.TimeoutExpired:
            process.terminate()
    return Measured(started, duration, 0)


def timings_body(base: Mapping[str, object], timings: list[Timing]) -> bytes:
    """The batch JSON, gzipped deterministically."""
    rows = [{k: v for k, v in asdict(t).items() if k != "users" or v is not None} for t in timings]
    text = json.dumps({**base, "timings": rows}, separators=(",", ":"))
    return gzip.compress(text.encode("utf-8"), compresslevel=6, mtime=0)


def run(args: argparse.Namespace, ctx: Context) -> int:
    """``headroom-agent time --name NAME [--repeat N] [--users N] -- CMD ...``"""
    command = list(args.program)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        print(
            "nothing to time: put the command after --, e.g. `headroom-agent time --name x -- cmd`",
            file=ctx.err,
        )
        return EXIT_USAGE
    if args.until_window and not windows.SUPPORTED:
        print(windows.MESSAGE, file=ctx.err)
        return EXIT_USAGE
    if args.repeat < 1:
        print("--repeat must be 1 or more", file=ctx.err)
        return EXIT_USAGE
    if args.users is not None and args.users < 0:
        print("--users is the number of active user sessions, 0 or more", file=ctx.err)
        return EXIT_USAGE
    try:
        tags = parse_pairs(args.tag or [], "tag")
    except ConfigError as exc:
        print(str(exc), file=ctx.err)
        return EXIT_USAGE
    settings = ctx.settings
    campaign = settings.require_campaign()

    timings: list[Timing] = []
    failures = 0
    for repetition in range(1, args.repeat + 1):
        if repetition > 1 and args.pause:
            time.sleep(args.pause)
        try:
            measured = measure(command, args.until_window, args.window_timeout, args.leave_running)
        except TimingError as exc:
            print(f"repetition {repetition}/{args.repeat}: {exc}; not recorded", file=ctx.err)
            failures += 1
            if "cannot start" in str(exc):
                break
            continue
        if measured.exit_code != 0:
            print(
                f"repetition {repetition}/{args.repeat}: {args.name} {measured.duration_ms:.1f} ms, "
                f"but the command exited with {measured.exit_code}; not recorded",
                file=ctx.err,
            )
            failures += 1
            continue
        print(
            f"repetition {repetition}/{args.repeat}: {args.name} {measured.duration_ms:.1f} ms", file=ctx.err
        )
        timings.append(
            Timing(
                args.name,
                iso_utc(measured.started),
                round(measured.duration_ms, 3),
                repetition,
                dict(tags),
                args.users,
            )
        )
    if not timings:
        print("no repetition succeeded; nothing to upload", file=ctx.err)
        return EXIT_FAILED

    base = {
        "campaign": campaign,
        "host": settings.host,
        "role": settings.role,
        "scenario": settings.scenario,
        "run": args.run or "",
    }
    envelope = Envelope(
        kind="timings",
        method="POST",
        path="/api/v1/timings",
        headers={"Content-Type": "application/json", "Content-Encoding": "gzip"},
        label=f"timings of {args.name!r} ({len(timings)} repetitions)",
        created=iso_utc(datetime.now(timezone.utc)),
    )
    item = ctx.spool.add_bytes(envelope, timings_body(base, timings))
    result = ctx.outbox.flush()
    report(result, ctx.spool, [item], ctx.err)
    delivery = result.of(item)
    if delivery is not None and delivery.verdict is Verdict.DELIVERED:
        answer = delivery.answer or {}
        print(f"upload {answer.get('id')} {answer.get('status')} {envelope.label}", file=ctx.out)
    elif delivery is not None and delivery.verdict is Verdict.REJECTED:
        print(f"{envelope.label}: rejected by the server: {delivery.message}", file=ctx.err)
    else:
        print(f"spooled {envelope.label} (not delivered yet; kept in {ctx.spool.items_dir})", file=ctx.out)
    return combine(spool_code(ctx.spool, [item]), EXIT_FAILED if failures else EXIT_OK)

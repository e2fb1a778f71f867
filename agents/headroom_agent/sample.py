"""``headroom-agent sample``: live counters, batched to ``POST /api/v1/samples``.

psutil figures are named with the canonical perfmon counter paths
(``\\\\HOST\\Processor(_Total)\\% Processor Time`` ...), so the capacity
views treat live samples and perfmon logs alike. On Windows ``--typeperf
PATH`` adds any perfmon counter, read from a ``typeperf`` child process.

The sampling loop only reads counters and appends to a list; every
``--batch`` seconds the batch is serialised once into the spool and a
background thread delivers it, so a slow or absent server never delays a
tick. Cost is kept low by computing counter paths once and waking only on
ticks (see ``bench_overhead.py``).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import math
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from datetime import datetime, timezone
from types import ModuleType
from typing import Any, TextIO

from headroom_agent.client import Verdict
from headroom_agent.context import EXIT_FAILED, EXIT_OK, EXIT_USAGE, Context, combine, spool_code
from headroom_agent.outbox import FlushResult, Outbox, report
from headroom_agent.spool import Envelope, Item, Spool

GROUPS = ("cpu", "mem", "disk", "net")
MIB = 1024.0 * 1024.0
LOOPBACK_PREFIXES = ("lo", "loopback")

Sample = dict[str, Any]


class SamplingUnavailable(Exception):
    """psutil (or typeperf) is not there; the message says how to get it."""


def counter_path(host: str, obj: str, instance: str, counter: str) -> str:
    """``\\\\HOST\\Object(Instance)\\Counter`` as perfmon writes it."""
    return f"\\\\{host}\\{obj}({instance})\\{counter}" if instance else f"\\\\{host}\\{obj}\\{counter}"


def utc_stamp(moment: datetime | None = None) -> str:
    """``2024-05-01T10:00:00.123Z``"""
    moment = moment or datetime.now(timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def import_psutil() -> ModuleType:
    try:
        import psutil  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        raise SamplingUnavailable(
            "live sampling needs psutil: `pip install psutil` "
            "(or install the agent with `pip install 'headroom-agent[sampling]'`)"
        ) from None
    module: ModuleType = psutil
    return module


def commit_percent(psutil: ModuleType) -> float:
    """``Memory\\% Committed Bytes In Use``: commit charge over commit limit."""
    if sys.platform == "win32":
        import ctypes

        class MemoryStatus(ctypes.Structure):
            _fields_ = [
                ("dwLength", ctypes.c_ulong),
                ("dwMemoryLoad", ctypes.c_ulong),
                ("ullTotalPhys", ctypes.c_ulonglong),
                ("ullAvailPhys", ctypes.c_ulonglong),
                ("ullTotalPageFile", ctypes.c_ulonglong),
                ("ullAvailPageFile", ctypes.c_ulonglong),
                ("ullTotalVirtual", ctypes.c_ulonglong),
                ("ullAvailVirtual", ctypes.c_ulonglong),
                ("ullAvailExtendedVirtual", ctypes.c_ulonglong),
            ]

        status = MemoryStatus()
        status.dwLength = ctypes.sizeof(MemoryStatus)
        if ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status)) and status.ullTotalPageFile:
            total = float(status.ullTotalPageFile)
            return 100.0 * (total - float(status.ullAvailPageFile)) / total
    elif sys.platform.startswith("linux"):
        try:
            with open("/proc/meminfo", "rb") as handle:
                fields = dict(line.split(b":", 1) for line in handle.read().splitlines() if b":" in line)
            committed = float(fields[b"Committed_AS"].split()[0])
            limit = float(fields[b"CommitLimit"].split()[0])
            if limit > 0:
                return 100.0 * committed / limit
        except (OSError, KeyError, ValueError, IndexError):
            pass
    return float(psutil.virtual_memory().percent)


class Sampler:
    """Reads the chosen counter groups; rates come from deltas between reads."""

    def __init__(
        self, host: str, groups: Iterable[str], per_nic: bool = False, psutil: ModuleType | None = None
    ):
        self.psutil = psutil or import_psutil()
        self.groups = tuple(groups)
        self.per_nic = per_nic
        self.host = host
        path = self._path
        self.cpu_path = path("Processor", "_Total", "% Processor Time")
        self.mem_paths = (
            path("Memory", "", "Available MBytes"),
            path("Memory", "", "% Committed Bytes In Use"),
        )
        disk = (
            "Disk Transfers/sec",
            "Disk Reads/sec",
            "Disk Writes/sec",
            "Disk Bytes/sec",
            "Disk Read Bytes/sec",
            "Disk Write Bytes/sec",
            "Avg. Disk sec/Transfer",
        )
        self.disk_paths = tuple(path("PhysicalDisk", "_Total", name) for name in disk)
        self.net_names = ("Bytes Total/sec", "Bytes Sent/sec", "Bytes Received/sec")
        self.net_total_paths = tuple(path("Network Interface", "_Total", name) for name in self.net_names)
        self._nic_paths: dict[str, tuple[str, ...]] = {}
        self._last_time = 0.0
        self._disk: Any = None
        self._net: dict[str, Any] = {}

    def _path(self, obj: str, instance: str, counter: str) -> str:
        return counter_path(self.host, obj, instance, counter)

    def _nics(self) -> dict[str, Any]:
        counters = self.psutil.net_io_counters(pernic=True) or {}
        return {
            name: value
            for name, value in counters.items()
            if not name.lower().startswith(LOOPBACK_PREFIXES) and "loopback" not in name.lower()
        }

    def prime(self) -> None:
        """First readings: rates need a previous value, and cpu_percent a previous call."""
        self._last_time = time.monotonic()
        if "cpu" in self.groups:
            self.psutil.cpu_percent(None)
        if "disk" in self.groups:
            self._disk = self.psutil.disk_io_counters()
        if "net" in self.groups:
            self._net = self._nics()

    def read(self) -> list[tuple[str, float]]:
        """One reading of every counter: ``[(path, value)]``."""
        now = time.monotonic()
        elapsed = max(now - self._last_time, 1e-6)
        self._last_time = now
        values: list[tuple[str, float]] = []
        if "cpu" in self.groups:
            values.append((self.cpu_path, float(self.psutil.cpu_percent(None))))
        if "mem" in self.groups:
            values.append((self.mem_paths[0], self.psutil.virtual_memory().available / MIB))
            values.append((self.mem_paths[1], commit_percent(self.psutil)))
        if "disk" in self.groups:
            values += self._disk_values(elapsed)
        if "net" in self.groups:
            values += self._net_values(elapsed)
        return [(path, round(value, 4)) for path, value in values if math.isfinite(value)]

    def _disk_values(self, elapsed: float) -> list[tuple[str, float]]:
        current = self.psutil.disk_io_counters()
        previous, self._disk = self._disk, current
        if current is None or previous is None:
            return []
        reads = current.read_count - previous.read_count
        writes = current.write_count - previous.write_count
        read_bytes = current.read_bytes - previous.read_bytes
        write_bytes = current.write_bytes - previous.write_bytes
        busy_ms = (current.read_time - previous.read_time) + (current.write_time - previous.write_time)
        transfers = reads + writes
        figures = (
            transfers / elapsed,
            reads / elapsed,
            writes / elapsed,
            (read_bytes + write_bytes) / elapsed,
            read_bytes / elapsed,
            write_bytes / elapsed,
            busy_ms / 1000.0 / transfers if transfers else 0.0,
        )
        return list(zip(self.disk_paths, figures))

    def _net_values(self, elapsed: float) -> list[tuple[str, float]]:
        current = self._nics()
        previous, self._net = self._net, current
        sent_total = received_total = 0.0
        values: list[tuple[str, float]] = []
        for name, now in current.items():
            before = previous.get(name)
            if before is None:
                continue
            sent = max(now.bytes_sent - before.bytes_sent, 0) / elapsed
            received = max(now.bytes_recv - before.bytes_recv, 0) / elapsed
            sent_total += sent
            received_total += received
            if self.per_nic:
                paths = self._nic_paths.get(name)
                if paths is None:
                    paths = tuple(
                        self._path("Network Interface", name, counter) for counter in self.net_names
                    )
                    self._nic_paths[name] = paths
                values += zip(paths, (sent + received, sent, received))
        totals = (sent_total + received_total, sent_total, received_total)
        return list(zip(self.net_total_paths, totals)) + values


class TypeperfParser:
    """Turns ``typeperf`` CSV lines into samples stamped with the time they arrived."""

    def __init__(self) -> None:
        self.columns: list[str] | None = None

    def feed(self, line: str, stamp: str) -> list[Sample]:
        cells = next(csv.reader([line.strip()]), [])
        if not cells:
            return []
        if cells[0].startswith("(PDH-CSV"):
            self.columns = cells[1:]
            return []
        if self.columns is None or len(cells) != len(self.columns) + 1:
            return []  # typeperf's own status lines ("Exiting, please wait...")
        found = []
        for path, cell in zip(self.columns, cells[1:]):
            text = cell.strip()
            if not text:
                continue
            try:
                value = float(text)
            except ValueError:
                try:
                    value = float(text.replace(",", "."))
                except ValueError:
                    continue
            if math.isfinite(value):
                found.append({"time": stamp, "counter": path, "value": value})
        return found


class TypeperfReader(threading.Thread):
    """Runs ``typeperf PATH... -si N`` and hands each line's samples to ``sink``."""

    def __init__(self, paths: list[str], interval: float, sink: Callable[[list[Sample]], None]) -> None:
        super().__init__(name="typeperf", daemon=True)
        exe = shutil.which("typeperf")
        if exe is None:
            raise SamplingUnavailable("--typeperf needs typeperf.exe (Windows only); it is not on PATH")
        self.command = [exe, *paths, "-si", str(max(1, round(interval)))]
        self.sink = sink
        self.process: subprocess.Popen[str] | None = None
        self.error = ""

    def run(self) -> None:
        parser = TypeperfParser()
        self.process = subprocess.Popen(
            self.command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace"
        )
        assert self.process.stdout is not None
        for line in self.process.stdout:
            samples = parser.feed(line, utc_stamp())
            if samples:
                self.sink(samples)
            elif parser.columns is None and line.strip().lower().startswith("error"):
                self.error = line.strip()
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
        self.join(timeout=5)


def batch_body(settings_body: dict[str, Any], samples: list[Sample]) -> bytes:
    """The JSON body of one batch, gzipped deterministically."""
    text = json.dumps({**settings_body, "samples": samples}, separators=(",", ":"))
    return gzip.compress(text.encode("utf-8"), compresslevel=6, mtime=0)


class BackgroundFlusher(threading.Thread):
    """Delivers the spool whenever kicked (and every ``period`` seconds), reporting changes only."""

    def __init__(self, outbox: Outbox, spool: Spool, own: list[Item], stream: TextIO, period: float = 60.0):
        super().__init__(name="flusher", daemon=True)
        self.outbox = outbox
        self.spool = spool
        self.own = own
        self.stream = stream
        self.period = period
        self._kick = threading.Event()
        self._halt = threading.Event()
        self.failing = False
        self.delivered = 0

    def kick(self) -> None:
        self._kick.set()

    def run(self) -> None:
        while not self._halt.is_set():
            self._kick.wait(self.period)
            self._kick.clear()
            if self._halt.is_set():
                break
            self.note(self.outbox.flush(lock_timeout=5.0))

    def note(self, result: FlushResult) -> None:
        """Say so when the server goes away or comes back, not on every batch."""
        self.delivered += sum(1 for d in result.deliveries if d.verdict is Verdict.DELIVERED)
        for delivery in result.deliveries:
            if delivery.verdict is Verdict.REJECTED:
                print(
                    f"rejected by the server: {delivery.item.envelope.label}: {delivery.message}",
                    file=self.stream,
                )
        if result.failure is not None and not self.failing:
            self.failing = True
            report(
                FlushResult(remaining=result.remaining, failure=result.failure), self.spool, (), self.stream
            )
        elif result.failure is None and not result.lock_busy and self.failing:
            self.failing = False
            print(f"server reachable again; the spool holds {result.remaining} item(s)", file=self.stream)

    def stop(self) -> None:
        self._halt.set()
        self._kick.set()
        self.join()


def run(args: argparse.Namespace, ctx: Context) -> int:
    """``headroom-agent sample``"""
    settings = ctx.settings
    groups = [g.strip() for g in args.counters.split(",") if g.strip() and g.strip() != "none"]
    unknown = [g for g in groups if g not in GROUPS]
    if unknown:
        print(f"unknown counter group(s) {', '.join(unknown)}; choose from {','.join(GROUPS)}", file=ctx.err)
        return EXIT_USAGE
    if args.interval <= 0 or args.batch <= 0 or args.duration < 0:
        print("--interval and --batch must be positive, --duration 0 or more", file=ctx.err)
        return EXIT_USAGE
    if not groups and not args.typeperf:
        print("nothing to sample: give --counters and/or --typeperf", file=ctx.err)
        return EXIT_USAGE
    body_base: dict[str, Any] = {
        "campaign": settings.require_campaign(),
        "host": settings.host,
        "role": settings.role,
        "scenario": settings.scenario,
        "run": args.run,
    }
    pending: list[Sample] = []
    pending_lock = threading.Lock()

    def collect(samples: list[Sample]) -> None:
        with pending_lock:
            pending.extend(samples)

    try:
        sampler = Sampler(settings.host, groups, args.per_nic) if groups else None
        typeperf = TypeperfReader(args.typeperf, args.interval, collect) if args.typeperf else None
    except SamplingUnavailable as exc:
        print(str(exc), file=ctx.err)
        return EXIT_USAGE

    own: list[Item] = []
    flusher = BackgroundFlusher(ctx.outbox, ctx.spool, own, ctx.err)
    stop = threading.Event()
    ticks = values = 0

    def ship() -> None:
        with pending_lock:
            batch = list(pending)
            pending.clear()
        if not batch:
            return
        label = f"samples of run {args.run}, {batch[0]['time']} .. {batch[-1]['time']} ({len(batch)} values)"
        envelope = Envelope(
            kind="samples",
            method="POST",
            path="/api/v1/samples",
            headers={"Content-Type": "application/json", "Content-Encoding": "gzip"},
            label=label,
            created=utc_stamp(),
        )
        own.append(ctx.spool.add_bytes(envelope, batch_body(body_base, batch)))
        flusher.kick()

    previous_handler = None
    if hasattr(signal, "SIGTERM") and threading.current_thread() is threading.main_thread():
        previous_handler = signal.signal(signal.SIGTERM, lambda *_: stop.set())
    flusher.start()
    if typeperf is not None:
        typeperf.start()
    if sampler is not None:
        sampler.prime()
    start = time.monotonic()
    end = start + args.duration if args.duration else math.inf
    next_tick = start + args.interval
    next_batch = start + args.batch
    interrupted = False
    try:
        while next_tick <= end + 1e-6:
            delay = next_tick - time.monotonic()
            if delay > 0 and stop.wait(delay):
                break
            now = time.monotonic()
            if sampler is not None:
                stamp = utc_stamp()
                readings = [{"time": stamp, "counter": p, "value": v} for p, v in sampler.read()]
                collect(readings)
                values += len(readings)
            ticks += 1
            next_tick += args.interval
            if next_tick < now:  # the machine stalled: skip the missed ticks rather than burst
                next_tick = now + args.interval
            if now >= next_batch:
                ship()
                next_batch = now + args.batch
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if typeperf is not None:
            typeperf.stop()
        ship()
        flusher.stop()
        if previous_handler is not None:
            signal.signal(signal.SIGTERM, previous_handler)
    result = ctx.outbox.flush(lock_timeout=60.0)
    flusher.note(result)
    left = [item for item in own if item.path.exists()]
    where = "stopped" if interrupted or stop.is_set() else "done"
    print(
        f"{where}: {ticks} ticks, {values} psutil values, {len(own)} batch(es), "
        f"{len(own) - len(left)} delivered or rejected, {len(left)} in the spool",
        file=ctx.err,
    )
    if result.failure is not None:
        report(result, ctx.spool, own, ctx.err)
    error = EXIT_FAILED if typeperf is not None and typeperf.error else EXIT_OK
    if typeperf is not None and typeperf.error:
        print(f"typeperf: {typeperf.error}", file=ctx.err)
    return combine(spool_code(ctx.spool, own), error)

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
import os
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

from headroom_agent import inventory
from headroom_agent.client import Verdict
from headroom_agent.context import EXIT_FAILED, EXIT_OK, EXIT_USAGE, Context, combine, spool_code
from headroom_agent.instances import perfmon_instance
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


DISK_COUNTERS = (
    "Disk Transfers/sec",
    "Disk Reads/sec",
    "Disk Writes/sec",
    "Disk Bytes/sec",
    "Disk Read Bytes/sec",
    "Disk Write Bytes/sec",
    "Avg. Disk sec/Transfer",
    "Avg. Disk Queue Length",
)
# Block devices that are not disks (Linux): psutil lists them with the disks.
NOT_DISKS = ("loop", "ram", "zram", "sr", "fd", "nbd")


def whole_disk(name: str) -> bool:
    """A disk, not a partition or a loop device: on Linux, what /sys/block lists."""
    if name.startswith(NOT_DISKS):
        return False
    if sys.platform.startswith("linux") and os.path.isdir("/sys/block"):
        return os.path.exists(f"/sys/block/{name}")
    return True


def linux_in_flight() -> dict[str, int]:
    """Requests each Linux block device has in flight now (/proc/diskstats, the 12th field)."""
    found: dict[str, int] = {}
    try:
        with open("/proc/diskstats", encoding="ascii", errors="replace") as handle:
            for line in handle:
                fields = line.split()
                if len(fields) >= 12 and fields[11].isdigit():
                    found[fields[2]] = int(fields[11])
    except OSError:
        pass
    return found


class Sampler:
    """Reads the chosen counter groups; rates come from deltas between reads.

    Disks are read one by one (``PhysicalDisk(<disk>)``, psutil's names) and
    summed into ``_Total``: transfers, bytes, ``Avg. Disk sec/Transfer`` (time
    spent on the interval's transfers over their number) and ``Avg. Disk Queue
    Length`` (that time over the interval: perfmon's own definition), with
    ``% Idle Time`` where psutil gives a busy time and ``Current Disk Queue
    Length`` where the system counts requests in flight (Linux). Each adapter
    gets ``Bytes Total/sec``, ``Bytes Sent/sec``, ``Bytes Received/sec`` and,
    when its link speed is known, ``Current Bandwidth`` in bits/s.
    """

    def __init__(
        self,
        host: str,
        groups: Iterable[str],
        per_nic: bool = True,
        psutil: ModuleType | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        is_disk: Callable[[str], bool] = whole_disk,
        in_flight: Callable[[], dict[str, int]] | None = None,
    ):
        self.psutil = psutil or import_psutil()
        self.groups = tuple(groups)
        self.per_nic = per_nic
        self.host = host
        self.clock = clock
        self.is_disk = is_disk
        self.in_flight = (
            in_flight
            if in_flight is not None
            else (linux_in_flight if sys.platform.startswith("linux") else None)
        )
        path = self._path
        self.cpu_path = path("Processor", "_Total", "% Processor Time")
        self.mem_paths = (
            path("Memory", "", "Available MBytes"),
            path("Memory", "", "% Committed Bytes In Use"),
        )
        self.net_names = ("Bytes Total/sec", "Bytes Sent/sec", "Bytes Received/sec")
        self.net_total_paths = tuple(path("Network Interface", "_Total", name) for name in self.net_names)
        self._paths: dict[tuple[str, str, str], str] = {}
        self._last_time = 0.0
        self._disks: dict[str, Any] = {}
        self._net: dict[str, Any] = {}

    def _path(self, obj: str, instance: str, counter: str) -> str:
        return counter_path(self.host, obj, instance, counter)

    def _cached(self, obj: str, instance: str, counter: str) -> str:
        key = (obj, instance, counter)
        found = self._paths.get(key)
        if found is None:
            found = self._paths[key] = self._path(obj, perfmon_instance(instance), counter)
        return found

    def _nics(self) -> dict[str, Any]:
        counters = self.psutil.net_io_counters(pernic=True) or {}
        return {
            name: value
            for name, value in counters.items()
            if not name.lower().startswith(LOOPBACK_PREFIXES) and "loopback" not in name.lower()
        }

    def _disk_counters(self) -> dict[str, Any]:
        counters = self.psutil.disk_io_counters(perdisk=True) or {}
        return {name: value for name, value in counters.items() if self.is_disk(name)}

    def prime(self) -> None:
        """First readings: rates need a previous value, and cpu_percent a previous call."""
        self._last_time = self.clock()
        if "cpu" in self.groups:
            self.psutil.cpu_percent(None)
        if "disk" in self.groups:
            self._disks = self._disk_counters()
        if "net" in self.groups:
            self._net = self._nics()

    def read(self) -> list[tuple[str, float]]:
        """One reading of every counter: ``[(path, value)]``."""
        now = self.clock()
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
        current = self._disk_counters()
        previous, self._disks = self._disks, current
        flight = self.in_flight() if self.in_flight is not None else {}
        values: list[tuple[str, float]] = []
        totals = [0.0] * 7  # reads, writes, read bytes, write bytes, busy ms (transfers), busy %, in flight
        idle_disks = 0
        for name, now in sorted(current.items()):
            before = previous.get(name)
            if before is None:
                continue
            deltas = [
                max(getattr(now, field) - getattr(before, field), 0)
                for field in (
                    "read_count",
                    "write_count",
                    "read_bytes",
                    "write_bytes",
                    "read_time",
                    "write_time",
                )
            ]
            reads, writes, read_bytes, write_bytes, read_ms, write_ms = deltas
            figures = self._disk_figures(reads, writes, read_bytes, write_bytes, read_ms + write_ms, elapsed)
            values += [(self._cached("PhysicalDisk", name, c), v) for c, v in zip(DISK_COUNTERS, figures)]
            for index, delta in enumerate((reads, writes, read_bytes, write_bytes, read_ms + write_ms)):
                totals[index] += delta
            if hasattr(now, "busy_time"):
                busy = min(max(now.busy_time - before.busy_time, 0) / (elapsed * 1000.0), 1.0)
                values.append((self._cached("PhysicalDisk", name, "% Idle Time"), 100.0 * (1.0 - busy)))
                totals[5] += 100.0 * (1.0 - busy)
                idle_disks += 1
            if name in flight:
                values.append((self._cached("PhysicalDisk", name, "Current Disk Queue Length"), flight[name]))
                totals[6] += flight[name]
        if not values:
            return []
        figures = self._disk_figures(totals[0], totals[1], totals[2], totals[3], totals[4], elapsed)
        values += [(self._cached("PhysicalDisk", "_Total", c), v) for c, v in zip(DISK_COUNTERS, figures)]
        if idle_disks:
            values.append((self._cached("PhysicalDisk", "_Total", "% Idle Time"), totals[5] / idle_disks))
        if flight:
            values.append((self._cached("PhysicalDisk", "_Total", "Current Disk Queue Length"), totals[6]))
        return values

    @staticmethod
    def _disk_figures(
        reads: float, writes: float, read_bytes: float, write_bytes: float, busy_ms: float, elapsed: float
    ) -> tuple[float, ...]:
        """DISK_COUNTERS from one interval's deltas (counts, bytes, milliseconds spent on transfers)."""
        transfers = reads + writes
        return (
            transfers / elapsed,
            reads / elapsed,
            writes / elapsed,
            (read_bytes + write_bytes) / elapsed,
            read_bytes / elapsed,
            write_bytes / elapsed,
            busy_ms / 1000.0 / transfers if transfers else 0.0,
            busy_ms / 1000.0 / elapsed,
        )

    def _net_values(self, elapsed: float) -> list[tuple[str, float]]:
        current = self._nics()
        previous, self._net = self._net, current
        links = (self.psutil.net_if_stats() or {}) if self.per_nic else {}
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
                paths = [self._cached("Network Interface", name, counter) for counter in self.net_names]
                values += zip(paths, (sent + received, sent, received))
                speed = getattr(links.get(name), "speed", 0) or 0
                if speed > 0:  # psutil: Mb/s, 0 when unknown; perfmon: bits/s
                    values.append((self._cached("Network Interface", name, "Current Bandwidth"), speed * 1e6))
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
    if not args.no_inventory:  # ahead of the samples: the server's limits need memory and link speeds
        inventory.spool_inventory(ctx.spool, settings, ctx.err)
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

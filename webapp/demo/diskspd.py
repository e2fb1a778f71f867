"""DiskSpd over SMB 2.1 vs SMB 3.02 by block size (seed 000): one text report per server and power profile."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from webapp.demo.files import SEED, DemoUpload

KIB = 1024
MIB = 1024 * 1024
DISKSPD_BLOCKS = (4 * KIB, 8 * KIB, 16 * KIB, 64 * KIB, 256 * KIB, 1024 * KIB)
DISKSPD_SECONDS = 60
DISKSPD_WARMUP = 5
DISKSPD_THREADS = 2
DISKSPD_OUTSTANDING = 8  # per thread
DISKSPD_WRITE_PCT = 30
DISKSPD_CLIENT = "WIN81-01"
DISKSPD_CPUS = 4
DISKSPD_TARGET = "\\\\FS01\\Home\\DiskSpd\\test256M.dat"
DISKSPD_EXE = "C:\\DiskSpd\\amd64fre\\diskspd.exe"
# Total MiB/s of the 70/30 sequential mix against the 256 MB file over 1 GbE in
# high-performance mode, where both dialects move the same bytes: small blocks
# are bound by round trips, large ones by the wire (~112 MiB/s).
DISKSPD_HIGH_MIBPS = {
    4 * KIB: Decimal("33.9"),
    8 * KIB: Decimal("61.2"),
    16 * KIB: Decimal("88.4"),
    64 * KIB: Decimal("109.6"),
    256 * KIB: Decimal("111.8"),
    1024 * KIB: Decimal("112.4"),
}
# Throughput in balanced mode as a share of high-performance mode, per dialect:
# 4 KiB and 8 KiB drop (more for SMB 2.1), 16 KiB and up barely move.
DISKSPD_BALANCED_SHARE = {
    "2.1": {4 * KIB: 0.66, 8 * KIB: 0.77, 16 * KIB: 0.97, 64 * KIB: 0.99, 256 * KIB: 0.995, 1024 * KIB: 1.0},
    "3.02": {4 * KIB: 0.79, 8 * KIB: 0.87, 16 * KIB: 0.98, 64 * KIB: 0.99, 256 * KIB: 1.0, 1024 * KIB: 1.0},
}
# (server OS, SMB dialect, power profile, first start time in UTC)
DISKSPD_RUNS = (
    ("2008 R2", "2.1", "high performance", datetime(2015, 8, 3, 9, 30, tzinfo=UTC)),
    ("2012 R2", "3.02", "high performance", datetime(2015, 8, 4, 9, 30, tzinfo=UTC)),
    ("2008 R2", "2.1", "balanced", datetime(2015, 8, 5, 9, 30, tzinfo=UTC)),
    ("2012 R2", "3.02", "balanced", datetime(2015, 8, 6, 9, 30, tzinfo=UTC)),
)
# DiskSpd's latency percentiles as multiples of the mean latency of the direction.
DISKSPD_PERCENTILES = (
    ("min", 0.22),
    ("25th", 0.71),
    ("50th", 0.93),
    ("75th", 1.16),
    ("90th", 1.52),
    ("95th", 1.88),
    ("99th", 3.1),
    ("3-nines", 6.4),
    ("4-nines", 11.8),
    ("5-nines", 19.5),
    ("6-nines", 21.0),
    ("7-nines", 21.0),
    ("8-nines", 21.0),
    ("9-nines", 21.0),
    ("max", 21.0),
)


@dataclass(frozen=True)
class _Thread:
    reads: int
    writes: int
    read_ms: float  # mean latency
    write_ms: float

    @property
    def ios(self) -> int:
        return self.reads + self.writes

    @property
    def total_ms(self) -> float:
        return (self.reads * self.read_ms + self.writes * self.write_ms) / self.ios


def diskspd_mibps(dialect: str, profile: str, block: int) -> Decimal:
    """The total MiB/s the demo's DiskSpd sweep aims at for one dialect, power profile and block size.

    The printed figure differs from it by the whole number of I/Os a run performs.
    """
    high = DISKSPD_HIGH_MIBPS[block]
    if dialect == "2.1":
        high *= Decimal("0.995")  # within measurement noise of SMB 3.02
    if profile == "balanced":
        return high * Decimal(str(DISKSPD_BALANCED_SHARE[dialect][block]))
    return high


def uploads() -> Iterator[DemoUpload]:
    for index, (server_os, dialect, profile, start) in enumerate(DISKSPD_RUNS):
        rng = random.Random(SEED * 500 + index)
        scenario = {
            "study": "smb-block-size",
            "server_os": server_os,
            "smb_dialect": dialect,
            "power_profile": profile,
        }
        reports = []
        moment = start
        for block in DISKSPD_BLOCKS:
            reports.append(_diskspd_report(dialect, profile, block, moment, rng))
            moment += timedelta(seconds=DISKSPD_WARMUP + DISKSPD_SECONDS + rng.randint(3, 9))
        slug = profile.replace(" ", "-")
        yield DemoUpload(
            filename=f"diskspd_smb{dialect}_{slug}.txt",
            # cmd.exe's ``for %b in (4K 8K ...) do diskspd ... >> file`` appends every
            # call's report to one file as console text with CRLF line ends.
            content="".join(reports).replace("\n", "\r\n").encode("ascii"),
            kind="diskspd_text",
            scenario=scenario,
            host=DISKSPD_CLIENT,
            role="client",
            run=f"diskspd-smb{dialect}-{slug}",
            steps=[],
        )


def _diskspd_report(dialect: str, profile: str, block: int, start: datetime, rng: random.Random) -> str:
    """One ``diskspd -Rtext`` report (DiskSpd 2.0.17a layout) for one block size."""
    mibps = float(diskspd_mibps(dialect, profile, block)) * rng.uniform(0.99, 1.01)
    ios = round(mibps * MIB / block * DISKSPD_SECONDS)
    # SMB 2.1 reads wait longest when the host saves power; writes are slower otherwise.
    slow_reads = dialect == "2.1" and profile == "balanced" and block <= 8 * KIB
    write_over_read = 0.92 if slow_reads else 1.32
    threads = []
    share = rng.uniform(0.49, 0.51)
    for count in (round(ios * share), ios - round(ios * share)):
        writes = round(count * DISKSPD_WRITE_PCT / 100 * rng.uniform(0.99, 1.01))
        reads = count - writes
        # Little's law: each thread keeps DISKSPD_OUTSTANDING I/Os in flight.
        mean_ms = DISKSPD_OUTSTANDING * 1000 / (count / DISKSPD_SECONDS)
        read_ms = mean_ms * count / (reads + write_over_read * writes)
        threads.append(_Thread(reads, writes, read_ms, read_ms * write_over_read))
    size_k = f"{block // KIB}K"
    command = (
        f"{DISKSPD_EXE} -c256M -b{size_k} -d{DISKSPD_SECONDS} -W{DISKSPD_WARMUP} -o{DISKSPD_OUTSTANDING} "
        f"-t{DISKSPD_THREADS} -w{DISKSPD_WRITE_PCT} -Sh -L {DISKSPD_TARGET}"
    )
    pad = " " * 8
    lines = [
        f"Command Line: {command}",
        "",
        "Input parameters:",
        "",
        f"{pad}timespan:   1",
        f"{pad}-------------",
        f"{pad}duration: {DISKSPD_SECONDS}s",
        f"{pad}warm up time: {DISKSPD_WARMUP}s",
        f"{pad}cool down time: 0s",
        f"{pad}measuring latency",
        f"{pad}random seed: 0",
        f"{pad}path: '{DISKSPD_TARGET}'",
        f"{pad * 2}think time: 0ms",
        f"{pad * 2}burst size: 0",
        f"{pad * 2}software cache disabled",
        f"{pad * 2}hardware write cache disabled, writethrough on",
        f"{pad * 2}performing mix test (read/write ratio: {100 - DISKSPD_WRITE_PCT}/{DISKSPD_WRITE_PCT})",
        f"{pad * 2}block size: {block}",
        f"{pad * 2}using sequential I/O (stride: {block})",
        f"{pad * 2}number of outstanding I/O operations: {DISKSPD_OUTSTANDING}",
        f"{pad * 2}thread stride size: 0",
        f"{pad * 2}threads per file: {DISKSPD_THREADS}",
        f"{pad * 2}using I/O Completion Ports",
        f"{pad * 2}IO priority: normal",
        "",
        "System information:",
        "",
        f"{pad}computer name: {DISKSPD_CLIENT}",
        f"{pad}start time: {start:%Y/%m/%d %H:%M:%S} UTC",
        "",
        "Results for timespan 1:",
        "*" * 79,
        "",
        f"actual test time:\t{DISKSPD_SECONDS:.2f}s",
        f"thread count:\t\t{DISKSPD_THREADS}",
        f"proc count:\t\t{DISKSPD_CPUS}",
        "",
        *_diskspd_cpu(ios, profile, rng),
        "",
        *_diskspd_io_table("Total IO", block, [(t.ios, t.total_ms) for t in threads], rng),
        "",
        *_diskspd_io_table("Read IO", block, [(t.reads, t.read_ms) for t in threads], rng),
        "",
        *_diskspd_io_table("Write IO", block, [(t.writes, t.write_ms) for t in threads], rng),
        "",
        "",
        "",
        "total:",
        *_diskspd_percentiles(threads),
        "",
    ]
    return "\n".join(lines) + "\n"


def _diskspd_cpu(ios: int, profile: str, rng: random.Random) -> list[str]:
    rule = "-" * 43
    usage = 1.5 + ios / DISKSPD_SECONDS * 0.0011 * (1.15 if profile == "balanced" else 1.0)
    rows = []
    for cpu in range(DISKSPD_CPUS):
        busy = round(usage * rng.uniform(0.6, 1.4) * (1.5 if cpu == 0 else 1.0), 2)
        user = round(busy * rng.uniform(0.15, 0.3), 2)
        rows.append((busy, user, round(busy - user, 2), round(100 - busy, 2)))
    average = [sum(column) / len(rows) for column in zip(*rows, strict=True)]
    return [
        "CPU |  Usage |  User  |  Kernel |  Idle",
        rule,
        *(f"{cpu:4d}|{b:7.2f}%|{u:7.2f}%|{k:8.2f}%|{i:7.2f}%" for cpu, (b, u, k, i) in enumerate(rows)),
        rule,
        "avg.|{:7.2f}%|{:7.2f}%|{:8.2f}%|{:7.2f}%".format(*average),
    ]


def _diskspd_io_table(
    title: str, block: int, threads: Sequence[tuple[int, float]], rng: random.Random
) -> list[str]:
    """One I/O table: per thread (I/Os, mean latency ms), then the total row DiskSpd sums."""
    header = (
        "thread |       bytes     |     I/Os     |    MiB/s   |  I/O per s |  AvgLat  | LatStdDev |  file"
    )
    rule = "-" * 101
    target = f"{DISKSPD_TARGET} (256MiB)"
    rows = []
    for thread, (ios, mean_ms) in enumerate(threads):
        deviation = mean_ms * rng.uniform(0.4, 0.55)
        rows.append(f"{thread:6d} | {_diskspd_cells(ios, block, mean_ms, deviation)} | {target}")
    ios = sum(count for count, _ in threads)
    mean_ms = sum(count * ms for count, ms in threads) / ios
    deviation = mean_ms * rng.uniform(0.45, 0.55)
    return [title, header, rule, *rows, rule, f"total:   {_diskspd_cells(ios, block, mean_ms, deviation)}"]


def _diskspd_cells(ios: int, block: int, mean_ms: float, deviation_ms: float) -> str:
    nbytes = ios * block
    return (
        f"{nbytes:15d} | {ios:12d} | {nbytes / MIB / DISKSPD_SECONDS:10.2f} | {ios / DISKSPD_SECONDS:10.2f} | "
        f"{mean_ms:8.3f} | {deviation_ms:9.3f}"
    )


def _diskspd_percentiles(threads: Sequence[_Thread]) -> list[str]:
    reads = sum(t.reads for t in threads)
    writes = sum(t.writes for t in threads)
    read_ms = sum(t.reads * t.read_ms for t in threads) / reads
    write_ms = sum(t.writes * t.write_ms for t in threads) / writes
    lines = ["  %-ile |  Read (ms) | Write (ms) | Total (ms)", "-" * 46]
    for label, factor in DISKSPD_PERCENTILES:
        read, write = read_ms * factor, write_ms * factor
        if label == "min":
            total = min(read, write)
        elif label == "max":
            total = max(read, write)
        else:
            total = (reads * read + writes * write) / (reads + writes)
        lines.append(f"{label:>7} | {read:10.3f} | {write:10.3f} | {total:10.3f}")
    return lines

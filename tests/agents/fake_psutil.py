"""A stand-in for psutil holding fixed counter readings, and a clock the test moves.

psutil is outside the product: the sampler's arithmetic is tested on readings
chosen by hand, the way the operating system would hand them over.
"""

from __future__ import annotations

from types import ModuleType, SimpleNamespace
from typing import Any


def disk(
    read_count: int,
    write_count: int,
    read_bytes: int,
    write_bytes: int,
    read_time: int,
    write_time: int,
    busy_time: int | None = None,
) -> SimpleNamespace:
    found = SimpleNamespace(
        read_count=read_count,
        write_count=write_count,
        read_bytes=read_bytes,
        write_bytes=write_bytes,
        read_time=read_time,
        write_time=write_time,
    )
    if busy_time is not None:  # Linux and FreeBSD only
        found.busy_time = busy_time
    return found


def nic(bytes_sent: int, bytes_recv: int) -> SimpleNamespace:
    return SimpleNamespace(bytes_sent=bytes_sent, bytes_recv=bytes_recv)


class Clock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def fake_psutil() -> Any:
    """A module whose readings are its attributes: ``disks``, ``nics``, ``speeds`` (Mb/s), ``available``, ``cpu``."""
    module: Any = ModuleType("psutil")
    module.disks = {}
    module.nics = {}
    module.speeds = {}
    module.available = 0
    module.cpu = 0.0
    module.disk_io_counters = lambda perdisk=False: dict(module.disks)
    module.net_io_counters = lambda pernic=False: dict(module.nics)
    module.net_if_stats = lambda: {name: SimpleNamespace(speed=s) for name, s in module.speeds.items()}
    module.cpu_percent = lambda interval=None: module.cpu
    module.virtual_memory = lambda: SimpleNamespace(available=module.available, percent=50.0)
    return module

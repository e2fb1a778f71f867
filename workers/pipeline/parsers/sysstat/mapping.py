"""sysstat's activities mapped to perfmon objects and counters, so a Linux server reads like a Windows one.

Each activity arrives as an ``Activity``: what it is (``cpu``, ``memory``,
``disk``, ``net``, ``queue``, ``io``), its instance (a CPU number, a device,
an interface) and its fields as decimal text, keyed by sysstat's own names
as ``sadf -j`` spells them; ``sadf -d``'s column names are brought to that
spelling (``rkB/s`` -> ``rkB``, ``kbavail`` -> ``avail``, ``%util`` ->
``util-percent``, ``%idle`` -> ``idle-percent``).
:func:`counters` turns one activity into perfmon-named values.

*Measured* values are sysstat's figure in perfmon's unit (an exact decimal
scaling: kB x 1024, 512-byte sectors x 512, ms / 1000). *Inferred* values are
computed from several figures or stand for a counter sysstat does not have
(``% Processor Time`` = 100 - ``%idle``; ``Bytes Total/sec`` = received +
sent). ``source_path`` says which: ``sysstat disk(sda) await / 1000`` or
``sysstat 100 - cpu(all) idle``. ``docs/inputs.md`` has the whole table.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from workers.pipeline.parsers.common.counter_names import (
    MEMORY,
    NETWORK_INTERFACE,
    PHYSICAL_DISK,
    PROCESSOR,
    SYSTEM,
)

KIB = Decimal(1024)
SECTOR = Decimal(512)
HUNDRED = Decimal(100)


@dataclass(frozen=True)
class Activity:
    kind: str  # cpu, memory, disk, net, queue, io
    instance: str  # "" for system-wide activities
    fields: dict[str, str]
    line: int


@dataclass(frozen=True)
class Value:
    object: str
    instance: str
    counter: str
    text: str
    source: str


class BadValue(ValueError):
    """A field that is not a finite decimal number."""

    def __init__(self, field: str, text: str) -> None:
        super().__init__(field)
        self.field = field
        self.text = text


def _text(number: Decimal) -> str:
    return format(number.normalize(), "f")


class _Reader:
    """One activity's fields as Decimals, and the values made from them."""

    def __init__(self, activity: Activity, object_name: str, instance: str, label: str) -> None:
        self.activity = activity
        self.object = object_name
        self.instance = instance
        self.label = label
        self.values: list[Value] = []

    def get(self, *names: str) -> tuple[str, Decimal] | None:
        """The first of ``names`` the activity has, with its value."""
        for name in names:
            text = self.activity.fields.get(name)
            if text is None or text == "":
                continue
            try:
                number = Decimal(text.strip())
            except InvalidOperation:
                raise BadValue(name, text) from None
            if not number.is_finite():
                raise BadValue(name, text)
            return name, number
        return None

    def put(self, counter: str, number: Decimal, source: str) -> None:
        self.values.append(Value(self.object, self.instance, counter, _text(number), f"sysstat {source}"))

    def copy(self, counter: str, *names: str, scale: Decimal = Decimal(1), unit: str = "") -> Decimal | None:
        """A measured value: the field times an exact unit factor."""
        found = self.get(*names)
        if found is None:
            return None
        name, number = found
        self.put(counter, number * scale, f"{self.label} {name}{unit}")
        return number * scale


def _cpu(reader: _Reader) -> None:
    idle = reader.get("idle", "idle-percent")
    if idle is not None:
        reader.put("% Processor Time", HUNDRED - idle[1], f"100 - {reader.label} {idle[0]}")
        reader.put("% Idle Time", idle[1], f"{reader.label} {idle[0]}")
    reader.copy("% User Time", "usr", "user", "usr-percent", "user-percent")
    reader.copy("% Privileged Time", "sys", "system", "sys-percent", "system-percent")
    reader.copy("% IO Wait Time", "iowait", "iowait-percent")
    reader.copy("% Steal Time", "steal", "steal-percent")


def _memory(reader: _Reader) -> None:
    if reader.copy("Available MBytes", "avail", scale=1 / KIB, unit=" / 1024") is None:
        parts = [reader.get(name) for name in ("memfree", "buffers", "cached")]
        if all(part is not None for part in parts):
            total = sum((part[1] for part in parts if part is not None), Decimal(0))
            reader.put("Available MBytes", total / KIB, "(memfree + buffers + cached) / 1024")
    reader.copy("Free MBytes", "memfree", scale=1 / KIB, unit=" / 1024")
    reader.copy("% Memory Used", "memused-percent")


def _bytes(reader: _Reader, counter: str, kib: str, sectors: str) -> Decimal | None:
    found = reader.copy(counter, kib, scale=KIB, unit=" x 1024")
    return found if found is not None else reader.copy(counter, sectors, scale=SECTOR, unit=" x 512")


def _disk(reader: _Reader) -> None:
    reader.copy("Disk Transfers/sec", "tps")
    read = _bytes(reader, "Disk Read Bytes/sec", "rkB", "rd_sec")
    written = _bytes(reader, "Disk Write Bytes/sec", "wkB", "wr_sec")
    if read is not None and written is not None:
        reader.put("Disk Bytes/sec", read + written, f"read + write bytes of {reader.label}")
    reader.copy("Avg. Disk sec/Transfer", "await", scale=Decimal("0.001"), unit=" / 1000")
    reader.copy("Avg. Disk sec/Read", "r_await", scale=Decimal("0.001"), unit=" / 1000")
    reader.copy("Avg. Disk sec/Write", "w_await", scale=Decimal("0.001"), unit=" / 1000")
    reader.copy("Avg. Disk Queue Length", "aqu-sz", "avgqu-sz")
    util = reader.get("util-percent")
    if util is not None:
        reader.put("% Idle Time", HUNDRED - util[1], f"100 - {reader.label} util-percent")


def _io(reader: _Reader) -> None:
    reader.copy("Disk Transfers/sec", "tps")
    reader.copy("Disk Reads/sec", "rtps")
    reader.copy("Disk Writes/sec", "wtps")
    read = reader.copy("Disk Read Bytes/sec", "bread", scale=SECTOR, unit=" x 512")
    written = reader.copy("Disk Write Bytes/sec", "bwrtn", scale=SECTOR, unit=" x 512")
    if read is not None and written is not None:
        reader.put("Disk Bytes/sec", read + written, f"(bread + bwrtn) x 512 of {reader.label}")


def _net(reader: _Reader) -> None:
    received = reader.copy("Bytes Received/sec", "rxkB", scale=KIB, unit=" x 1024")
    sent = reader.copy("Bytes Sent/sec", "txkB", scale=KIB, unit=" x 1024")
    if received is not None and sent is not None:
        reader.put("Bytes Total/sec", received + sent, f"(rxkB + txkB) x 1024 of {reader.label}")
    packets_in = reader.copy("Packets Received/sec", "rxpck")
    packets_out = reader.copy("Packets Sent/sec", "txpck")
    if packets_in is not None and packets_out is not None:
        reader.put("Packets/sec", packets_in + packets_out, f"rxpck + txpck of {reader.label}")


def _queue(reader: _Reader) -> None:
    reader.copy("Load Average 1 min", "ldavg-1")
    reader.copy("Load Average 5 min", "ldavg-5")
    reader.copy("Load Average 15 min", "ldavg-15")
    reader.copy("Run Queue Length", "runq-sz")
    reader.copy("Blocked Tasks", "blocked")


_KINDS = {
    "cpu": (PROCESSOR, _cpu),
    "memory": (MEMORY, _memory),
    "disk": (PHYSICAL_DISK, _disk),
    "io": (PHYSICAL_DISK, _io),
    "net": (NETWORK_INTERFACE, _net),
    "queue": (SYSTEM, _queue),
}


def counters(activity: Activity) -> list[Value]:
    """The perfmon-named values of one activity (``BadValue`` for a field that is not a number)."""
    object_name, read = _KINDS[activity.kind]
    if activity.kind == "cpu":
        instance = "_Total" if activity.instance in ("all", "-1") else activity.instance
    elif activity.kind == "io":
        instance = "_Total"
    else:
        instance = activity.instance
    label = f"{activity.kind}({activity.instance})" if activity.instance else activity.kind
    reader = _Reader(activity, object_name, instance, label)
    read(reader)
    return reader.values

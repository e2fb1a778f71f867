"""Perfmon counter paths split into host, object, instance and counter, and named in English."""

from __future__ import annotations

import pytest

from workers.pipeline.parsers.common.counter_names import canonical_counter, canonical_object
from workers.pipeline.parsers.common.counter_paths import split_counter_path


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("\\\\S\\Processor(_Total)\\% Processor Time", ("S", "Processor", "_Total", "% Processor Time")),
        ("\\\\S\\Memory\\Available MBytes", ("S", "Memory", "", "Available MBytes")),
        ("\\\\S\\Process(svchost#12)\\Working Set", ("S", "Process", "svchost#12", "Working Set")),
        (
            "\\\\S\\Network Interface(Intel[R] Ethernet (2) I219-V)\\Bytes Total/sec",
            ("S", "Network Interface", "Intel[R] Ethernet (2) I219-V", "Bytes Total/sec"),
        ),
        (
            "\\\\C\\SMB Client Shares(\\fs01\\home)\\Avg. sec/Read",
            ("C", "SMB Client Shares", "\\fs01\\home", "Avg. sec/Read"),
        ),
        ("\\Processor(0)\\% Idle Time", ("", "Processor", "0", "% Idle Time")),
        (
            "\\\\S\\Physikalischer Datenträger(0 C:)\\Mittlere Sek./Übertragung",
            ("S", "PhysicalDisk", "0 C:", "Avg. Disk sec/Transfer"),
        ),
        ("\\\\S\\Mémoire\\Mégaoctets disponibles", ("S", "Memory", "", "Available MBytes")),
        (
            "\\\\S\\Disque physique(_Total)\\% d\N{RIGHT SINGLE QUOTATION MARK}inactivité",
            ("S", "PhysicalDisk", "_Total", "% Idle Time"),
        ),
        (
            "\\\\S\\Interfaz de red(eth)\\Bytes recibidos/s",
            ("S", "Network Interface", "eth", "Bytes Received/sec"),
        ),
        (
            "\\\\S\\Физический диск(_Total)\\Средняя длина очереди диска",
            ("S", "PhysicalDisk", "_Total", "Avg. Disk Queue Length"),
        ),
        ("\\\\S\\Unknown Object(x)\\Made-up Counter", ("S", "Unknown Object", "x", "Made-up Counter")),
    ],
)
def test_it_splits_counter_paths_and_names_them_in_english(
    path: str, expected: tuple[str, str, str, str]
) -> None:
    assert split_counter_path(path) == expected


@pytest.mark.parametrize(
    "path", ["no backslash", "\\\\HOST", "\\\\HOST\\Object", "\\\\\\Object\\Counter", "\\\\H\\Obj(x\\Counter"]
)
def test_it_refuses_malformed_counter_paths(path: str) -> None:
    assert split_counter_path(path) is None


def test_it_maps_localised_counters_only_under_their_own_object() -> None:
    # German "Lesevorgänge/s" is Disk Reads/sec under a disk, not under System.
    assert canonical_counter("PhysicalDisk", "Lesevorgänge/s") == "Disk Reads/sec"
    assert canonical_counter("System", "Lesevorgänge/s") == "Lesevorgänge/s"
    assert canonical_object("Arbeitsspeicher") == canonical_object("Память") == "Memory"
    assert canonical_counter("Processor", "% 处理器时间") == "% Processor Time"

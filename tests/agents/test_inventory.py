"""The machine inventory: Linux from /proc and /sys, Windows from CIM JSON, sent once per session."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest
from headroom_agent import inventory_linux, inventory_windows
from headroom_agent.cli import main

from tests.agents.conftest import AgentHome, Sink
from tests.paths import real_fixture

# Two sockets of two cores with hyper-threading: eight logical processors.
CPUINFO = "\n\n".join(
    f"processor\t: {n}\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Silver 4110 CPU @ 2.10GHz\n"
    f"physical id\t: {n // 4}\nsiblings\t: 4\ncore id\t\t: {(n // 2) % 2}\ncpu cores\t: 2"
    for n in range(8)
)


def write(root: Path, relpath: str, text: str) -> None:
    path = root / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_it_reads_a_real_sosreport_cpuinfo_and_meminfo() -> None:
    # A CoreOS VM on Hyper-V: one socket, one core, two siblings; MemTotal 8,164,548 kB.
    cpu = inventory_linux.parse_cpuinfo(real_fixture("linux_inventory/sosreport_coreos_cpuinfo").read_text())
    assert cpu == {
        "cpu_model": "Intel(R) Xeon(R) W-2155 CPU @ 3.30GHz",
        "sockets": 1,
        "cores": 1,
        "logical_processors": 2,
    }
    memory = inventory_linux.parse_meminfo(
        real_fixture("linux_inventory/sosreport_coreos_meminfo").read_text()
    )
    assert memory == 7973  # 8,164,548 / 1,024 = 7,973.2 MiB


def test_it_reads_a_linux_machine_from_its_files(tmp_path: Path) -> None:
    write(tmp_path, "proc/cpuinfo", CPUINFO)
    write(tmp_path, "proc/meminfo", "MemTotal:       16303876 kB\nMemFree:         1000 kB\n")
    write(tmp_path, "etc/os-release", 'NAME="Ubuntu"\nVERSION_ID="22.04"\nPRETTY_NAME="Ubuntu 22.04.4 LTS"\n')
    write(tmp_path, "sys/block/sda/size", "1953525168\n")  # 512-byte sectors: 1 TB
    write(tmp_path, "sys/block/sda/queue/rotational", "1\n")
    write(tmp_path, "sys/block/sda/device/model", "ST1000NM0033-9ZM\n")
    write(tmp_path, "sys/block/nvme0n1/size", "937703088\n")
    write(tmp_path, "sys/block/nvme0n1/queue/rotational", "0\n")
    write(tmp_path, "sys/block/loop0/size", "8\n")
    write(tmp_path, "sys/class/net/eth0/speed", "10000\n")
    write(tmp_path, "sys/class/net/eth1/speed", "-1\n")  # link down
    write(tmp_path, "sys/class/net/lo/speed", "")
    assert inventory_linux.collect(tmp_path) == {
        "os": "Ubuntu",
        "os_version": "22.04",
        "cpu_model": "Intel(R) Xeon(R) Silver 4110 CPU @ 2.10GHz",
        "sockets": 2,
        "cores": 4,
        "logical_processors": 8,
        "memory_mb": 15922,  # 16,303,876 / 1,024 = 15,921.75
        "disks": [
            {"name": "nvme0n1", "model": "", "size_bytes": 937703088 * 512, "media": "NVMe"},
            {"name": "sda", "model": "ST1000NM0033-9ZM", "size_bytes": 1953525168 * 512, "media": "HDD"},
        ],
        "nics": [{"name": "eth0", "speed_bps": 10e9}, {"name": "eth1", "speed_bps": None}],
    }


# What SCRIPT prints on a Windows Server 2019 file server (PowerShell 5.1, -Compress): one
# processor object per socket, two memory modules, an SSD and an NVMe disk, two adapters.
WINDOWS_JSON = json.dumps(
    {
        "os": {"Caption": "Microsoft Windows Server 2019 Standard", "Version": "10.0.17763"},
        "system": {
            "NumberOfProcessors": 2,
            "NumberOfLogicalProcessors": 16,
            "TotalPhysicalMemory": 34229235712,
        },
        "processors": [
            {
                "Name": "Intel(R) Xeon(R) Gold 6134 CPU @ 3.20GHz",
                "NumberOfCores": 4,
                "NumberOfLogicalProcessors": 8,
            },
            {
                "Name": "Intel(R) Xeon(R) Gold 6134 CPU @ 3.20GHz",
                "NumberOfCores": 4,
                "NumberOfLogicalProcessors": 8,
            },
        ],
        "memory": [{"Capacity": 17179869184}, {"Capacity": 17179869184}],
        "disks": [
            {
                "DeviceId": "0",
                "FriendlyName": "SAMSUNG MZ7LH480",
                "Size": 480103981056,
                "MediaType": 4,
                "BusType": 11,
            },
            {
                "DeviceId": "1",
                "FriendlyName": "Dell Ent NVMe",
                "Size": 1600321314816,
                "MediaType": 4,
                "BusType": 17,
            },
        ],
        "nics": [
            {
                "NetConnectionID": "Ethernet 2",
                "Name": "Intel(R) Ethernet 10G 2P X710 #2",
                "Speed": 10000000000,
            },
            {"NetConnectionID": "Backup", "Name": "Broadcom NetXtreme", "Speed": 9223372036854775807},
        ],
    }
)


def test_it_reads_a_windows_machine_from_cim_json() -> None:
    assert inventory_windows.parse(WINDOWS_JSON) == {
        "os": "Microsoft Windows Server 2019 Standard",
        "os_version": "10.0.17763",
        "cpu_model": "Intel(R) Xeon(R) Gold 6134 CPU @ 3.20GHz",
        "sockets": 2,
        "cores": 8,
        "logical_processors": 16,
        "memory_mb": 32768,  # the two modules: 2 x 16 GiB (TotalPhysicalMemory is what Windows sees)
        "disks": [
            {
                "name": "PhysicalDrive0",
                "model": "SAMSUNG MZ7LH480",
                "size_bytes": 480103981056,
                "media": "SSD",
            },
            {
                "name": "PhysicalDrive1",
                "model": "Dell Ent NVMe",
                "size_bytes": 1600321314816,
                "media": "NVMe",
            },
        ],
        "nics": [
            {"name": "Ethernet 2", "description": "Intel[R] Ethernet 10G 2P X710 _2", "speed_bps": 10e9},
            {"name": "Backup", "description": "Broadcom NetXtreme", "speed_bps": None},  # no link
        ],
    }


def test_one_instance_comes_as_an_object_and_missing_modules_fall_back_to_total_memory() -> None:
    text = json.dumps(
        {
            "os": {"Caption": "Microsoft Windows 10 Enterprise", "Version": "10.0.19045"},
            "system": {
                "NumberOfProcessors": 1,
                "NumberOfLogicalProcessors": 2,
                "TotalPhysicalMemory": 4294430720,
            },
            "processors": {
                "Name": "Intel(R) Core(TM) i5",
                "NumberOfCores": 2,
                "NumberOfLogicalProcessors": 2,
            },
            "memory": [],
            "disks": {"DeviceId": "0", "FriendlyName": "Virtual Disk", "Size": 136365211648, "MediaType": 0},
            "nics": {
                "NetConnectionID": "Ethernet",
                "Name": "Microsoft Hyper-V Network Adapter",
                "Speed": "10000000000",
            },
        }
    )
    found = inventory_windows.parse("\ufeff" + text)
    assert (found["sockets"], found["cores"], found["logical_processors"]) == (1, 2, 2)
    assert found["memory_mb"] == 4095  # 4,294,430,720 / 1,048,576 = 4,095.5 -> 4,095 (round half to even)
    assert found["disks"] == [
        {"name": "PhysicalDrive0", "model": "Virtual Disk", "size_bytes": 136365211648, "media": ""}
    ]
    assert found["nics"][0]["speed_bps"] == 10e9


def test_powershell_that_does_not_answer_json_is_a_clear_failure() -> None:
    with pytest.raises(inventory_windows.InventoryFailed, match="not JSON"):
        inventory_windows.parse("Get-CimInstance : Access denied")


@pytest.mark.skipif(sys.platform == "win32", reason="a shell script stands in for powershell.exe")
def test_it_asks_powershell_for_cim_instances(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "bin" / "powershell"
    fake.parent.mkdir()
    (tmp_path / "answer.json").write_text(WINDOWS_JSON)
    fake.write_text(f'#!/bin/sh\necho "$@" > {tmp_path / "args"}\ncat {tmp_path / "answer.json"}\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    assert inventory_windows.collect() == inventory_windows.parse(WINDOWS_JSON)
    args = (tmp_path / "args").read_text()
    assert args.startswith("-NoProfile -NonInteractive -Command ")
    for name in ("Win32_ComputerSystem", "Win32_Processor", "Win32_PhysicalMemory", "MSFT_PhysicalDisk"):
        assert name in args


def test_an_upload_session_sends_the_inventory_once_before_the_files(
    agent_home: AgentHome, sink: Sink, tmp_path: Path
) -> None:
    files = [tmp_path / "a.csv", tmp_path / "b.csv"]
    for n, path in enumerate(files):
        path.write_text(f"name,duration_ms\nx,{n}\n")
    base = [
        "upload",
        "--server",
        sink.url,
        "--token",
        "t",
        "--campaign",
        "c",
        "--host",
        "FS 01",
        "--role",
        "server",
    ]
    assert main([*base, *map(str, files)]) == 0
    (sent,) = sink.inventories
    assert sent.path == "/api/v1/hosts/FS%2001/inventory"
    body = sent.json()
    assert (body["campaign"], body["role"]) == ("c", "server")
    if sys.platform.startswith("linux"):
        assert body["logical_processors"] == os.cpu_count()
    assert len(sink.posts("/api/v1/uploads")) == 2
    assert main([*base, "--no-inventory", str(files[0])]) == 0
    assert len(sink.inventories) == 1

"""Live disk and network figures from fixed psutil readings, against hand-computed values."""

from __future__ import annotations

import pytest
from headroom_agent.sample import Sampler

from tests.agents.fake_psutil import Clock, disk, fake_psutil, nic


def sampled() -> dict[str, float]:
    psutil = fake_psutil()
    clock = Clock(100.0)
    psutil.disks = {
        "sda": disk(1000, 500, 4_096_000, 2_048_000, 3000, 1500, busy_time=2000),
        "sda1": disk(5, 5, 5, 5, 5, 5, busy_time=5),  # a partition: not a disk
        "nvme0n1": disk(0, 0, 0, 0, 0, 0, busy_time=0),
        "loop0": disk(1, 1, 1, 1, 1, 1, busy_time=1),
    }
    psutil.nics = {"eth0": nic(1000, 2000), "eth1": nic(0, 0), "lo": nic(0, 0)}
    psutil.speeds = {"eth0": 1000, "eth1": 0}  # Mb/s; 0: unknown
    sampler = Sampler(
        "FS01",
        ["disk", "net"],
        psutil=psutil,
        clock=clock,
        is_disk=lambda name: name in ("sda", "nvme0n1"),
        in_flight=lambda: {"sda": 3, "sda1": 3, "nvme0n1": 1},
    )
    sampler.prime()
    clock.now = 102.0  # two seconds later
    psutil.disks = {
        # +100 reads of 8 KiB, +100 writes of 4 KiB, 600 + 1,000 ms on them, busy 1,500 of 2,000 ms.
        "sda": disk(1100, 600, 4_915_200, 2_457_600, 3600, 2500, busy_time=3500),
        "sda1": disk(9, 9, 9, 9, 9, 9, busy_time=9),
        # +1,000 reads of 4,096 bytes, 200 ms on them, busy 400 ms.
        "nvme0n1": disk(1000, 0, 4_096_000, 0, 200, 0, busy_time=400),
        "loop0": disk(9, 9, 9, 9, 9, 9, busy_time=9),
    }
    psutil.nics = {"eth0": nic(25_001_000, 100_002_000), "eth1": nic(0, 0), "lo": nic(9, 9)}
    return dict(sampler.read())


def test_each_disk_gets_throughput_latency_and_queue_length() -> None:
    found = sampled()
    sda = {k.split("\\")[-1]: v for k, v in found.items() if "PhysicalDisk(sda)" in k}
    assert sda == {
        "Disk Transfers/sec": 100.0,  # 200 / 2 s
        "Disk Reads/sec": 50.0,
        "Disk Writes/sec": 50.0,
        "Disk Bytes/sec": 614_400.0,  # (819,200 + 409,600) / 2
        "Disk Read Bytes/sec": 409_600.0,
        "Disk Write Bytes/sec": 204_800.0,
        "Avg. Disk sec/Transfer": 0.008,  # 1.6 s over 200 transfers
        "Avg. Disk Queue Length": 0.8,  # 1.6 s of transfers in 2 s
        "% Idle Time": 25.0,  # busy 1.5 of 2 s
        "Current Disk Queue Length": 3.0,
    }
    nvme = "\\\\FS01\\PhysicalDisk(nvme0n1)\\"
    assert found[nvme + "Avg. Disk sec/Transfer"] == 0.0002  # 0.2 s over 1,000
    assert found[nvme + "Avg. Disk Queue Length"] == 0.1
    assert found[nvme + "% Idle Time"] == 80.0
    assert not any("sda1" in k or "loop0" in k for k in found)


def test_the_disk_total_sums_the_disks() -> None:
    found = sampled()
    total = {k.split("\\")[-1]: v for k, v in found.items() if "PhysicalDisk(_Total)" in k}
    assert total == {
        "Disk Transfers/sec": 600.0,  # 1,200 / 2
        "Disk Reads/sec": 550.0,
        "Disk Writes/sec": 50.0,
        "Disk Bytes/sec": 2_662_400.0,  # (819,200 + 409,600 + 4,096,000) / 2
        "Disk Read Bytes/sec": 2_457_600.0,
        "Disk Write Bytes/sec": 204_800.0,
        "Avg. Disk sec/Transfer": 0.0015,  # 1.8 s over 1,200
        "Avg. Disk Queue Length": 0.9,  # 0.8 + 0.1
        "% Idle Time": 52.5,  # the disks' mean
        "Current Disk Queue Length": 4.0,
    }


def test_each_adapter_gets_its_throughput_and_link_speed_in_bits() -> None:
    found = sampled()
    eth0 = {k.split("\\")[-1]: v for k, v in found.items() if "Network Interface(eth0)" in k}
    assert eth0 == {
        "Bytes Total/sec": 62_500_000.0,  # (25,000,000 + 100,000,000) / 2 s
        "Bytes Sent/sec": 12_500_000.0,
        "Bytes Received/sec": 50_000_000.0,
        "Current Bandwidth": 1e9,  # 1,000 Mb/s
    }
    assert "\\\\FS01\\Network Interface(eth1)\\Current Bandwidth" not in found  # speed unknown
    assert found["\\\\FS01\\Network Interface(_Total)\\Bytes Total/sec"] == 62_500_000.0
    assert not any("(lo)" in k for k in found)


def test_adapter_names_are_written_as_perfmon_writes_instances() -> None:
    psutil = fake_psutil()
    clock = Clock()
    psutil.nics = {"vEthernet (Default Switch)": nic(0, 0)}
    psutil.speeds = {"vEthernet (Default Switch)": 10000}
    sampler = Sampler("H", ["net"], psutil=psutil, clock=clock)
    sampler.prime()
    clock.now += 1
    paths = [p for p, _ in sampler.read()]
    assert "\\\\H\\Network Interface(vEthernet [Default Switch])\\Current Bandwidth" in paths


@pytest.mark.parametrize("per_nic", [False])
def test_without_per_nic_only_the_total_is_sent(per_nic: bool) -> None:
    psutil = fake_psutil()
    clock = Clock()
    psutil.nics = {"eth0": nic(0, 0)}
    psutil.speeds = {"eth0": 1000}
    sampler = Sampler("H", ["net"], per_nic=per_nic, psutil=psutil, clock=clock)
    sampler.prime()
    clock.now += 1
    assert all("(_Total)" in p for p, _ in sampler.read())

"""FSCT capacity runs (seed 001): the file server's perfmon CSV per scenario."""

from __future__ import annotations

import io
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from webapp.demo.files import SEED, DemoUpload

USERS = tuple(range(100, 1001, 100))
SERVER = "FS01"
NIC = "Intel[R] 82574L Gigabit Network Connection"
SAMPLE_SECONDS = 15
STEP_SAMPLES = 40  # 10 minutes per load step
RAMP_SAMPLES = 8  # 2 minutes while FSCT adds the next users
EDGE_SAMPLES = 4  # 1 idle minute before the first and after the last step
# Within a step, each whole minute (4 samples) averages exactly to the step's
# mean, so trimming whole minutes of ramp-up/down does not move it; the step's
# maximum sits once in each of these minutes.
GROUP = 4
PEAK_GROUPS = (1, 4, 6, 8)
IOPS_PER_CPU_PERCENT = 25.0  # IOPS peaks (~2,500) coincide with CPU peaks

# Step average and maximum % Processor Time per user count (100..1,000).
# Users before saturation -- the smallest user count where the step average
# reaches 80 %, interpolated linearly between the last step below and the
# first step above -- per scenario:
#   2012 R2 / SMB 3.02 / SSD / AV on (defaults)       833.3 (77 % at 800, 86 % at 900)
#   2012 R2 / SMB 3.02 / SSD / AV on-access scan off  860   (74 % at 800, 84 % at 900)
#   2012 R2 / SMB 3.02 / HDD / AV off                 912.5 (79 % at 900, 87 % at 1,000)
#   2008 R2 / SMB 2.1  / SSD / AV off                 980   (72 % at 900, 82 % at 1,000)
#   2012 R2 / SMB 3.02 / SSD / AV off                 not reached (> 1,000; 78 % at 1,000)
CPU_2008R2_AVG = (9, 16, 23, 31, 38, 46, 54, 63, 72, 82)
CPU_2008R2_MAX = (20, 29, 39, 62, 75, 85, 93, 98, 100, 100)
CPU_2012R2_AVG = (8, 15, 22, 30, 37, 45, 53, 62, 71, 78)
CPU_2012R2_MAX = (16, 24, 31, 38, 45, 53, 61, 70, 79, 86)
CPU_AV_AVG = (10, 18, 26, 34, 44, 56, 66, 77, 86, 93)
CPU_AV_MAX = (28, 40, 52, 64, 78, 92, 98, 100, 100, 100)
CPU_AV_NO_ON_ACCESS_AVG = (9, 17, 25, 33, 42, 54, 63, 74, 84, 91)
CPU_AV_NO_ON_ACCESS_MAX = (26, 38, 50, 62, 75, 90, 97, 100, 100, 100)
CPU_HDD_AVG = (10, 18, 26, 35, 44, 53, 62, 71, 79, 87)
CPU_HDD_MAX = (18, 27, 35, 45, 55, 64, 74, 83, 91, 97)


@dataclass(frozen=True)
class CapacityRun:
    run: str
    filename: str
    day: date
    server_os: str
    smb_dialect: str
    disk_type: str
    av: str
    cpu_avg: Sequence[float]
    cpu_max: Sequence[float]
    study: str = "fsct-capacity"

    @property
    def scenario(self) -> dict[str, str]:
        return {
            "study": self.study,
            "server_os": self.server_os,
            "smb_dialect": self.smb_dialect,
            "disk_type": self.disk_type,
            "av": self.av,
        }


CAPACITY_RUNS = (
    CapacityRun(
        "fsct-2008r2-smb2.1-ssd-av-off",
        "FS01_FSCT_2008R2_SMB2.1_SSD_AV-off.csv",
        date(2015, 2, 16),
        "2008 R2",
        "2.1",
        "SSD",
        "off",
        CPU_2008R2_AVG,
        CPU_2008R2_MAX,
    ),
    CapacityRun(
        "fsct-2012r2-smb3.02-ssd-av-off",
        "FS01_FSCT_2012R2_SMB3.02_SSD_AV-off.csv",
        date(2015, 2, 17),
        "2012 R2",
        "3.02",
        "SSD",
        "off",
        CPU_2012R2_AVG,
        CPU_2012R2_MAX,
    ),
    CapacityRun(
        "fsct-2012r2-smb3.02-ssd-av-on",
        "FS01_FSCT_2012R2_SMB3.02_SSD_AV-on.csv",
        date(2015, 2, 18),
        "2012 R2",
        "3.02",
        "SSD",
        "on",
        CPU_AV_AVG,
        CPU_AV_MAX,
    ),
    CapacityRun(
        "fsct-2012r2-smb3.02-ssd-av-on-access-off",
        "FS01_FSCT_2012R2_SMB3.02_SSD_AV-on-access-off.csv",
        date(2015, 2, 19),
        "2012 R2",
        "3.02",
        "SSD",
        "on-access-off",
        CPU_AV_NO_ON_ACCESS_AVG,
        CPU_AV_NO_ON_ACCESS_MAX,
    ),
    CapacityRun(
        "fsct-2012r2-smb3.02-hdd-av-off",
        "FS01_FSCT_2012R2_SMB3.02_HDD_AV-off.csv",
        date(2015, 2, 20),
        "2012 R2",
        "3.02",
        "HDD",
        "off",
        CPU_HDD_AVG,
        CPU_HDD_MAX,
    ),
)
# Windows writes perfmon timestamps in local time; in February the UK is on
# GMT, so local time is UTC and the header's bias is 0.
PDH_HEADER = "(PDH-CSV 4.0) (GMT Standard Time)(0)"
RUN_START = time(9, 0)


@dataclass(frozen=True)
class _Sample:
    users: float  # active users (interpolated while ramping)
    cpu: float
    cpu_level: float  # the phase's mean CPU, for counters that follow CPU


def uploads() -> Iterator[DemoUpload]:
    return server_uploads(CAPACITY_RUNS, SEED * 100, SERVER)


def server_uploads(runs: Sequence[CapacityRun], seed: int, server: str) -> Iterator[DemoUpload]:
    """Each run's server perfmon CSV (``server``'s counters) with its load steps; draws start at ``seed``."""
    for index, run in enumerate(runs):
        rng = random.Random(seed + index)
        start = run_start(run)
        samples = list(_capacity_samples(run, rng))
        yield DemoUpload(
            filename=run.filename,
            content=_perfmon_csv(run, start, samples, rng, server),
            kind="perfmon_csv",
            scenario=run.scenario,
            host=server,
            role="server",
            run=run.run,
            steps=capacity_steps(start),
        )


def run_start(run: CapacityRun) -> datetime:
    return datetime.combine(run.day, RUN_START, tzinfo=UTC)


def capacity_steps(start: datetime) -> list[tuple[int, datetime, datetime]]:
    steps = []
    for number, users in enumerate(USERS):
        offset = EDGE_SAMPLES + number * (STEP_SAMPLES + RAMP_SAMPLES)
        began = start + timedelta(seconds=offset * SAMPLE_SECONDS)
        steps.append((users, began, began + timedelta(seconds=STEP_SAMPLES * SAMPLE_SECONDS)))
    return steps


def _capacity_samples(run: CapacityRun, rng: random.Random) -> Iterator[_Sample]:
    idle = 2.5
    yield from _idle(idle, rng)
    for number, users in enumerate(USERS):
        avg, peak = float(run.cpu_avg[number]), float(run.cpu_max[number])
        for cpu in _step_cpu(avg, peak, rng):
            yield _Sample(users, cpu, avg)
        if number + 1 < len(USERS):
            following = float(run.cpu_avg[number + 1])
            for position in range(1, RAMP_SAMPLES + 1):
                share = position / (RAMP_SAMPLES + 1)
                level = avg + (following - avg) * share
                yield _Sample(users + 100 * share, level + rng.uniform(-1.5, 1.5), level)
    yield from _idle(idle, rng)


def _idle(level: float, rng: random.Random) -> Iterator[_Sample]:
    for _ in range(EDGE_SAMPLES):
        yield _Sample(0, level + rng.uniform(-1.0, 1.0), level)


def _step_cpu(avg: float, peak: float, rng: random.Random) -> list[float]:
    """One step's % Processor Time: mean exactly ``avg``, maximum exactly ``peak``."""
    noise = min(3.0, avg * 0.25)
    values: list[float] = []
    for group in range(STEP_SAMPLES // GROUP):
        if group in PEAK_GROUPS:
            # The peak is paid for by the other three samples of its minute.
            low = avg - (peak - avg) / 3
            wobble = rng.uniform(0, min(noise, low / 2))
            block = [low + wobble, low - wobble, low]
            block.insert(rng.randrange(GROUP), peak)
        else:
            first, second = rng.uniform(0.2, 1) * noise, rng.uniform(0.2, 1) * noise
            block = [avg + first, avg - second, avg - first, avg + second]
        values.extend(block)
    return values


def _perfmon_csv(
    run: CapacityRun, start: datetime, samples: list[_Sample], rng: random.Random, server: str
) -> bytes:
    host = f"\\\\{server}"
    columns = [
        PDH_HEADER,
        f"{host}\\Processor(_Total)\\% Processor Time",
        f"{host}\\PhysicalDisk(_Total)\\Avg. Disk Queue Length",
        f"{host}\\PhysicalDisk(_Total)\\Disk Transfers/sec",
        f"{host}\\Memory\\Available MBytes",
        f"{host}\\Network Interface({NIC})\\Bytes Total/sec",
    ]
    out = io.StringIO()
    out.write(_pdh_line(columns))
    for index, sample in enumerate(samples):
        # Sample clocks drift by a few milliseconds, as the collector's do,
        # and never land on a step boundary.
        stamp = start + timedelta(seconds=index * SAMPLE_SECONDS, milliseconds=412 + (index * 37) % 60)
        cells = [f"{stamp:%m/%d/%Y %H:%M:%S}.{stamp.microsecond // 1000:03d}"]
        ratio = sample.cpu / sample.cpu_level
        available = round(13_800 - 3.2 * sample.users + rng.uniform(-20, 20))
        if index == 0:
            # Rate and averaged counters need two samples: perfmon leaves the
            # first row blank except for instantaneous counters.
            cells += [" ", " ", " ", str(available), " "]
        else:
            iops = IOPS_PER_CPU_PERCENT * sample.cpu + rng.uniform(-20, 20)
            queue = _queue_length(run.disk_type, sample.users) * ratio * rng.uniform(0.9, 1.1)
            network = (20_000 + 9_800 * sample.users) * ratio * rng.uniform(0.95, 1.05)
            cells += [_pdh(sample.cpu), _pdh(queue), _pdh(max(iops, 0.0)), str(available), _pdh(network)]
        out.write(_pdh_line(cells))
    return out.getvalue().encode("utf-8")


def _queue_length(disk_type: str, users: float) -> float:
    if disk_type == "HDD":
        return 0.4 + 0.000035 * users * users
    return 0.05 + 0.0012 * users


def _pdh(value: float) -> str:
    """A value as PDH prints it: up to 20 significant digits."""
    return format(value, ".20g")


def _pdh_line(cells: Sequence[str]) -> str:
    return '"' + '","'.join(cells) + '"\r\n'

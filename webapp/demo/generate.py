"""The demo campaign "Folder Redirection 2015", as the raw files a tester would upload.

Nothing here touches Django or the database: :func:`demo_campaign` returns the
bytes an agent would send (perfmon CSVs from the file server, timing files from
the clients) plus the upload metadata, so the demo enters through the real
ingest path and the dashboard recomputes the seed studies' published figures
(``shared/reference/seed_tables.md``) from raw data:

* FSCT capacity runs (seed 001): one server perfmon CSV per scenario, 100 to
  1,000 users in ten 10-minute steps, with the orderings the study reports;
* application launch under folder redirection (seed 002): five repetitions per
  app and scenario whose means give the published factors exactly;
* continuous-availability vs ordinary shares (seed 004): the published
  "non-CA faster by" ratios, exactly, as ratios of means;
* robocopy vs Storage Replica (seed 003): the published times to complete;
* logon over SMB 2.1 vs SMB 3.02 (seed 000): ten logons each, no significant
  difference;
* DiskSpd over SMB 2.1 vs SMB 3.02 by block size (seed 000): one DiskSpd text
  report per server and hypervisor power profile, a sweep of six block sizes
  appended to one file as a loop of ``diskspd`` calls writes it. No difference
  between the dialects in high-performance mode; in balanced mode 4 KiB and
  8 KiB throughput drops, more for SMB 2.1, whose reads slow down most.

The output is deterministic: fixed seeds, fixed dates in 2015, no clock.
Durations are built in whole microseconds so a mean of repetitions is exact
to three decimals in milliseconds.
"""

from __future__ import annotations

import csv
import io
import json
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, timezone
from decimal import Decimal

SEED = 2015

DIMENSIONS = [
    "server_os",
    "smb_dialect",
    "disk_type",
    "av",
    "ca_share",
    "redirection",
    "power_profile",
    "server_cpu_load",
    "study",
    "technique",
    "dataset",
    "options",
]


@dataclass(frozen=True)
class DemoUpload:
    """One file as an agent would upload it, with the metadata it sends along."""

    filename: str
    content: bytes  # exactly what an agent would upload
    kind: str  # "perfmon_csv", "timings" or "diskspd_text"
    scenario: dict[str, str]
    host: str
    role: str  # "server" or "client"
    run: str  # groups the uploads of one test execution
    steps: list[tuple[int, datetime, datetime]]  # (users, start, end) in UTC; [] unless a capacity run


@dataclass(frozen=True)
class DemoCampaign:
    name: str
    slug: str
    description: str
    dimensions: list[str]
    uploads: list[DemoUpload]


def demo_campaign() -> DemoCampaign:
    """The whole demo campaign; the same bytes on every call."""
    return DemoCampaign(
        name="Folder Redirection 2015",
        slug="demo",
        description=(
            "Demo data reproducing the 2015 folder-redirection studies: FSCT capacity runs of a file "
            "server by Windows Server version / SMB dialect, disk type and anti-virus; application "
            "launch with folders redirected to a busy SMB 1 or SMB 2.1 server; logon over SMB 2.1 "
            "vs 3.02; DiskSpd throughput by block size over SMB 2.1 vs 3.02; continuously available vs "
            "ordinary shares; robocopy vs Storage Replica."
        ),
        dimensions=list(DIMENSIONS),
        uploads=[
            *_capacity_uploads(),
            *_app_launch_uploads(),
            *_ca_share_uploads(),
            *_copy_uploads(),
            *_logon_uploads(),
            *_diskspd_uploads(),
        ],
    )


# --------------------------------------------------------------------------
# FSCT capacity runs (seed 001): the file server's perfmon CSV per scenario

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
class _CapacityRun:
    run: str
    filename: str
    day: date
    server_os: str
    smb_dialect: str
    disk_type: str
    av: str
    cpu_avg: Sequence[float]
    cpu_max: Sequence[float]

    @property
    def scenario(self) -> dict[str, str]:
        return {
            "study": "fsct-capacity",
            "server_os": self.server_os,
            "smb_dialect": self.smb_dialect,
            "disk_type": self.disk_type,
            "av": self.av,
        }


CAPACITY_RUNS = (
    _CapacityRun(
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
    _CapacityRun(
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
    _CapacityRun(
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
    _CapacityRun(
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
    _CapacityRun(
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


def _capacity_uploads() -> Iterator[DemoUpload]:
    for index, run in enumerate(CAPACITY_RUNS):
        rng = random.Random(SEED * 100 + index)
        start = datetime.combine(run.day, RUN_START, tzinfo=UTC)
        samples = list(_capacity_samples(run, rng))
        yield DemoUpload(
            filename=run.filename,
            content=_perfmon_csv(run, start, samples, rng),
            kind="perfmon_csv",
            scenario=run.scenario,
            host=SERVER,
            role="server",
            run=run.run,
            steps=_capacity_steps(start),
        )


def _capacity_steps(start: datetime) -> list[tuple[int, datetime, datetime]]:
    steps = []
    for number, users in enumerate(USERS):
        offset = EDGE_SAMPLES + number * (STEP_SAMPLES + RAMP_SAMPLES)
        began = start + timedelta(seconds=offset * SAMPLE_SECONDS)
        steps.append((users, began, began + timedelta(seconds=STEP_SAMPLES * SAMPLE_SECONDS)))
    return steps


def _capacity_samples(run: _CapacityRun, rng: random.Random) -> Iterator[_Sample]:
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


def _perfmon_csv(run: _CapacityRun, start: datetime, samples: list[_Sample], rng: random.Random) -> bytes:
    host = f"\\\\{SERVER}"
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


# --------------------------------------------------------------------------
# Timings: helpers shared by the studies below


def _micros(milliseconds: Decimal) -> int:
    micros = milliseconds * 1000
    if micros != micros.to_integral_value():
        raise ValueError(f"{milliseconds} ms is not a whole number of microseconds")
    return int(micros)


def _repetitions(rng: random.Random, mean_ms: Decimal, count: int, spread: float) -> list[int]:
    """``count`` durations in microseconds whose mean is exactly ``mean_ms``.

    Each differs from the mean by at most ``spread`` of it: all but the last
    are drawn, the last balances them, and a draw is repeated until the last
    one also stays within the spread.
    """
    mean = _micros(mean_ms)
    limit = int(mean * spread)
    while True:
        drawn = [rng.randint(-limit, limit) for _ in range(count - 1)]
        last = -sum(drawn)
        if abs(last) <= limit:
            return [mean + deviation for deviation in [*drawn, last]]


def _ms(micros: int) -> float:
    return micros / 1000


def _stamp(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds")


def _json_rows(rows: Sequence[dict[str, object]]) -> list[str]:
    return [json.dumps(row, ensure_ascii=False) for row in rows]


# --------------------------------------------------------------------------
# Application launch under folder redirection (seed 002)

APPS = ("Freemind", "Firefox", "Excel", "PowerPoint", "Adobe Reader XI")
APP_BASELINE_MS = {
    "Freemind": Decimal("2043.6"),
    "Firefox": Decimal("912.4"),
    "Excel": Decimal("1187.2"),
    "PowerPoint": Decimal("1456.8"),
    "Adobe Reader XI": Decimal("712.4"),
}
# Mean launch time vs the no-redirection baseline, per (server OS, SMB
# dialect, file-server CPU load). The 100 % columns are the published
# figures (Firefox "> 5x" over SMB 2.1 is 5.5x, PowerPoint "barely affected"
# is 1.05x); the rest are plausible fill-ins.
APP_FACTORS: dict[tuple[str, str, str], dict[str, Decimal]] = {
    ("2008 R2", "2.1", "0"): {
        "Freemind": Decimal("1.3"),
        "Firefox": Decimal("1.6"),
        "Excel": Decimal("1.4"),
        "PowerPoint": Decimal("1.01"),
        "Adobe Reader XI": Decimal("1.03"),
    },
    ("2008 R2", "2.1", "50"): {
        "Freemind": Decimal("1.8"),
        "Firefox": Decimal("2.9"),
        "Excel": Decimal("2.6"),
        "PowerPoint": Decimal("1.03"),
        "Adobe Reader XI": Decimal("1.08"),
    },
    ("2008 R2", "2.1", "100"): {
        "Freemind": Decimal("2.5"),
        "Firefox": Decimal("5.5"),
        "Excel": Decimal("5.5"),
        "PowerPoint": Decimal("1.05"),
        "Adobe Reader XI": Decimal("1.14"),
    },
    ("2003", "1", "0"): {
        "Freemind": Decimal("2.2"),
        "Firefox": Decimal("3.5"),
        "Excel": Decimal("2.8"),
        "PowerPoint": Decimal("1.6"),
        "Adobe Reader XI": Decimal("4"),
    },
    ("2003", "1", "50"): {
        "Freemind": Decimal("9.5"),
        "Firefox": Decimal("41"),
        "Excel": Decimal("14.5"),
        "PowerPoint": Decimal("5.2"),
        "Adobe Reader XI": Decimal("120"),
    },
    ("2003", "1", "100"): {
        "Freemind": Decimal("32"),
        "Firefox": Decimal("178"),
        "Excel": Decimal("48"),
        "PowerPoint": Decimal("13.5"),
        "Adobe Reader XI": Decimal("541"),
    },
}
APP_LAUNCH_REPETITIONS = 5
MELBOURNE = timezone(timedelta(hours=10))  # AEST; no daylight saving in June


def _app_launch_uploads() -> Iterator[DemoUpload]:
    baseline = {"study": "app-launch", "redirection": "none"}
    scenarios: list[tuple[str, dict[str, str], dict[str, Decimal]]] = [
        ("app-launch-baseline", baseline, dict.fromkeys(APPS, Decimal(1)))
    ]
    for (server_os, dialect, load), factors in APP_FACTORS.items():
        scenario = {
            "study": "app-launch",
            "redirection": "on",
            "server_os": server_os,
            "smb_dialect": dialect,
            "server_cpu_load": load,
        }
        scenarios.append((f"app-launch-smb{dialect}-cpu{load}", scenario, factors))
    for index, (run, scenario, factors) in enumerate(scenarios):
        rng = random.Random(SEED * 200 + index)
        moment = datetime(2015, 6, 1 + index, 10, 0, tzinfo=MELBOURNE)
        rows: list[dict[str, object]] = []
        for app in APPS:
            mean = APP_BASELINE_MS[app] * factors[app]
            for repetition, micros in enumerate(_repetitions(rng, mean, APP_LAUNCH_REPETITIONS, 0.08), 1):
                rows.append(
                    {
                        "name": f"{app} launch",
                        "started_at": _stamp(moment),
                        "duration_ms": _ms(micros),
                        "repetition": repetition,
                    }
                )
                # Close the app and let the machine settle before the next launch.
                moment += timedelta(microseconds=micros, seconds=20 + rng.randint(0, 10))
        document = (
            "{\n"
            '  "host": "CLIENT01",\n'
            f'  "scenario": {json.dumps(scenario)},\n'
            '  "timings": [\n    ' + ",\n    ".join(_json_rows(rows)) + "\n  ]\n}\n"
        )
        yield DemoUpload(
            filename=f"{run}.json",
            content=document.encode("utf-8"),
            kind="timings",
            scenario=scenario,
            host="CLIENT01",
            role="client",
            run=run,
            steps=[],
        )


# --------------------------------------------------------------------------
# Continuously available vs ordinary shares (seed 004)

# (test, mean time on the ordinary share, how much faster it is than on CA)
CA_TESTS = (
    ("synthetic file creation (1 GB, 1 file)", Decimal(12_400), Decimal("1.475")),
    ("robocopy (1 GB, 1 file)", Decimal(11_800), Decimal("1.38")),
    ("Copy-Item -Force -Recurse (2 GB, 1,238 files, 96 folders)", Decimal(41_600), Decimal("1.465")),
    (
        "folder redirection full sync, event 1006 to 1001 (5 GB, 4,609 files, 143 folders)",
        Decimal(212_000),
        Decimal("1.26"),
    ),
    ("in-house file generator app", Decimal(12_900), Decimal("8.6")),
)
CA_REPETITIONS = 5
REDMOND = timezone(timedelta(hours=-7))  # PDT in March 2015 (after the 8th)


def _ca_share_uploads() -> Iterator[DemoUpload]:
    for index, ca_share in enumerate(("off", "on")):
        rng = random.Random(SEED * 300 + index)
        scenario = {"study": "ca-share", "server_os": "2012 R2", "smb_dialect": "3.02", "ca_share": ca_share}
        moment = datetime(2015, 3, 10 + index, 9, 0, tzinfo=REDMOND)
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\r\n")
        writer.writerow(
            ["name", "started_at", "duration_ms", "repetition", "host", "scenario", "scenario.ca_share"]
        )
        for test, ordinary_ms, factor in CA_TESTS:
            mean = ordinary_ms * factor if ca_share == "on" else ordinary_ms
            for repetition, micros in enumerate(_repetitions(rng, mean, CA_REPETITIONS, 0.05), 1):
                writer.writerow(
                    [
                        test,
                        _stamp(moment),
                        f"{_ms(micros):.3f}",
                        repetition,
                        "WIN81-01",
                        "study=ca-share;server_os=2012 R2;smb_dialect=3.02",
                        ca_share,
                    ]
                )
                moment += timedelta(microseconds=micros, seconds=60)
        yield DemoUpload(
            filename=f"ca_share_{ca_share}.csv",
            content=out.getvalue().encode("utf-8"),
            kind="timings",
            scenario=scenario,
            host="WIN81-01",
            role="client",
            run=f"ca-share-{ca_share}",
            steps=[],
        )


# --------------------------------------------------------------------------
# Block copy vs file copy (seed 003)

ROBOCOPY = "robocopy d:\\ \\\\host\\d$"
# (technique, data set, command line, repetition, time to complete)
COPY_RUNS = (
    (
        "robocopy",
        "95 GiB, 100,000,000 files of 1 KiB",
        f"{ROBOCOPY} * /s /copyall /zb /mt:128",
        1,
        timedelta(hours=8, minutes=0, seconds=12),
    ),
    (
        "robocopy",
        "1.45 TiB, 1 file",
        f"{ROBOCOPY} hugefile /copyall /zb",
        1,
        timedelta(hours=2, minutes=48, seconds=26),
    ),
    (
        "robocopy",
        "1.45 TiB, 1 file",
        f"{ROBOCOPY} hugefile /copyall /j /zb",
        1,
        timedelta(hours=2, minutes=38, seconds=8),
    ),
    (
        "robocopy",
        "1.45 TiB, 1,110,510 files of 1 KiB to 10 GiB",
        f"{ROBOCOPY} * /s /copyall /zb /mt:128",
        1,
        timedelta(minutes=25, seconds=0),
    ),
    (
        "robocopy",
        "1.45 TiB, 1 file",
        f"{ROBOCOPY} hugefile /copyall /j",
        1,
        timedelta(minutes=15, seconds=23),
    ),
    ("storage_replica", "1.45 TiB volume", "volume replication", 1, timedelta(minutes=14, seconds=27)),
    ("storage_replica", "1.45 TiB volume", "volume replication", 2, timedelta(minutes=14, seconds=29)),
    ("storage_replica", "1.45 TiB volume", "volume replication", 3, timedelta(minutes=14, seconds=23)),
)


def _copy_uploads() -> Iterator[DemoUpload]:
    moment = datetime(2015, 10, 5, 8, 0, tzinfo=UTC)
    rows: list[dict[str, object]] = []
    for technique, dataset, options, repetition, took in COPY_RUNS:
        rows.append(
            {
                "name": "time to complete",
                "started_at": _stamp(moment).replace("+00:00", "Z"),
                "duration_ms": took // timedelta(milliseconds=1),
                "repetition": repetition,
                "host": "SR-SRC01",
                "scenario": {
                    "study": "copy-migration",
                    "technique": technique,
                    "dataset": dataset,
                    "options": options,
                },
            }
        )
        moment += took + timedelta(minutes=30)  # reset the target between runs
    yield DemoUpload(
        filename="copy_migration.json",
        content=("[\n  " + ",\n  ".join(_json_rows(rows)) + "\n]\n").encode("utf-8"),
        kind="timings",
        scenario={"study": "copy-migration"},
        host="SR-SRC01",
        role="server",
        run="copy-migration",
        steps=[],
    )


# --------------------------------------------------------------------------
# Logon over SMB 2.1 vs SMB 3.02 (seed 000)

LOGON_REPETITIONS = 10
# (server OS, SMB dialect, client host, mean logon time): an enormous roaming
# profile (151 MB, 18,460 files), no cached copy; the dialect makes no
# difference.
LOGONS = (
    ("2008 R2", "2.1", "RDSH-2008R2", Decimal("38412.3")),
    ("2012 R2", "3.02", "RDSH-2012R2", Decimal("38298.7")),
)


def _logon_uploads() -> Iterator[DemoUpload]:
    for index, (server_os, dialect, host, mean) in enumerate(LOGONS):
        rng = random.Random(SEED * 400 + index)
        scenario = {"study": "logon", "server_os": server_os, "smb_dialect": dialect, "redirection": "none"}
        moment = datetime(2015, 5, 18 + index, 9, 0, tzinfo=MELBOURNE)
        lines = []
        for repetition, micros in enumerate(_repetitions(rng, mean, LOGON_REPETITIONS, 0.05), 1):
            row = {
                "name": "logon",
                "started_at": _stamp(moment),
                "duration_ms": _ms(micros),
                "repetition": repetition,
                "host": host,
                "scenario": scenario,
            }
            lines.append(json.dumps(row))
            moment += timedelta(minutes=5)
        yield DemoUpload(
            filename=f"logon_smb{dialect}.jsonl",
            content=("\n".join(lines) + "\n").encode("utf-8"),
            kind="timings",
            scenario=scenario,
            host=host,
            role="client",
            run=f"logon-smb{dialect}",
            steps=[],
        )


# --------------------------------------------------------------------------
# DiskSpd over SMB 2.1 vs SMB 3.02 by block size (seed 000)

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


def _diskspd_uploads() -> Iterator[DemoUpload]:
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

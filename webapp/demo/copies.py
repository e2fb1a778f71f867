"""Block copy vs file copy (seed 003): robocopy vs Storage Replica, the published times to complete."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

from webapp.demo import timings
from webapp.demo.files import DemoUpload

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


def uploads() -> Iterator[DemoUpload]:
    moment = datetime(2015, 10, 5, 8, 0, tzinfo=UTC)
    rows: list[dict[str, object]] = []
    for technique, dataset, options, repetition, took in COPY_RUNS:
        rows.append(
            {
                "name": "time to complete",
                "started_at": timings.stamp(moment).replace("+00:00", "Z"),
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
        content=("[\n  " + ",\n  ".join(timings.json_rows(rows)) + "\n]\n").encode("utf-8"),
        kind="timings",
        scenario={"study": "copy-migration"},
        host="SR-SRC01",
        role="server",
        run="copy-migration",
        steps=[],
    )

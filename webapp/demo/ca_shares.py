"""Continuously available vs ordinary shares (seed 004): the published "non-CA faster by" ratios."""

from __future__ import annotations

import csv
import io
import random
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from decimal import Decimal

from webapp.demo import timings
from webapp.demo.files import SEED, DemoUpload

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


def uploads() -> Iterator[DemoUpload]:
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
            for repetition, micros in enumerate(timings.repetitions(rng, mean, CA_REPETITIONS, 0.05), 1):
                writer.writerow(
                    [
                        test,
                        timings.stamp(moment),
                        f"{timings.ms(micros):.3f}",
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

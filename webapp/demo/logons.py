"""Logon over SMB 2.1 vs SMB 3.02 (seed 000): ten logons each, no significant difference."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from datetime import datetime, timedelta
from decimal import Decimal

from webapp.demo import timings
from webapp.demo.files import SEED, DemoUpload

LOGON_REPETITIONS = 10
# (server OS, SMB dialect, client host, mean logon time): an enormous roaming
# profile (151 MB, 18,460 files), no cached copy; the dialect makes no
# difference.
LOGONS = (
    ("2008 R2", "2.1", "RDSH-2008R2", Decimal("38412.3")),
    ("2012 R2", "3.02", "RDSH-2012R2", Decimal("38298.7")),
)


def uploads() -> Iterator[DemoUpload]:
    for index, (server_os, dialect, host, mean) in enumerate(LOGONS):
        rng = random.Random(SEED * 400 + index)
        scenario = {"study": "logon", "server_os": server_os, "smb_dialect": dialect, "redirection": "none"}
        moment = datetime(2015, 5, 18 + index, 9, 0, tzinfo=timings.MELBOURNE)
        lines = []
        for repetition, micros in enumerate(timings.repetitions(rng, mean, LOGON_REPETITIONS, 0.05), 1):
            row = {
                "name": "logon",
                "started_at": timings.stamp(moment),
                "duration_ms": timings.ms(micros),
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

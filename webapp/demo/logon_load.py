"""Logon under load (demo campaign "Logon load 2015"): when do users suffer, and does CPU or logon time bind first?

Two load runs of one file server, ``FS02``: Windows Server 2008 R2 with SMB 2.1
and 2012 R2 with SMB 3.02, 100 to 1,000 users in ten 10-minute steps (the same
timeline as the FSCT capacity runs). Four load clients, ``LG01``..``LG04``,
each time three logons and three Word launches inside every step and upload
their own timings file into the same run. The server uploads its perfmon CSV.

Per step, the mean logon time over the four clients is exactly the figure in
``LOGON_MS``: each client's own mean sits ``CLIENT_OFFSET_MS`` away from it and
the offsets cancel. With the first step as baseline (1,000 ms) and
``delta_ms=1000`` (threshold 2,000 ms):

* SMB 2.1: 1,600 ms at 500 users, 2,200 at 600 -> 566.7 users (interpolated);
  CPU reaches 80 % at 833.3 users (77 % at 800, 86 % at 900): logon time binds
  first.
* SMB 3.02: 1,400 ms at 800 users, 2,200 at 900 -> 875 users; CPU reaches 80 %
  at 775 users (68 % at 700, 84 % at 800): CPU binds first.

Word launch (``WORD_MS``) stays at 1,200 ms up to 600 (SMB 2.1) or 800 (SMB
3.02) users and then rises 2 ms per user.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Sequence
from datetime import date, timedelta
from decimal import Decimal

from webapp.demo import timings
from webapp.demo.capacity import USERS, CapacityRun, capacity_steps, run_start, server_uploads
from webapp.demo.files import SEED, DemoUpload

SERVER = "FS02"
# The campaign's limit table holds this beside the default ones: a logon slower than the first step's
# mean by a second is a saturated user experience, whichever resource causes it.
LOGON_LIMIT: dict[str, object] = {
    "resource": "timing",
    "counter": "",
    "timing": "logon",
    "baseline": "first_step",
    "threshold": 1000.0,
    "note": "logon time: baseline + 1 s",
}
STUDY = "logon-load"
CLIENTS = ("LG01", "LG02", "LG03", "LG04")
CLIENT_OFFSET_MS = (Decimal(60), Decimal(-60), Decimal(25), Decimal(-25))  # they cancel out
PER_STEP = 3  # logons (and Word launches) per client and step
FIRST_AT = timedelta(seconds=90)  # into the step, past the ramp-up that trimming drops
EVERY = timedelta(seconds=180)
LAUNCH_AFTER = timedelta(seconds=30)  # each Word launch follows its logon


def _rising(flat_until: int, per_user: Decimal, base: Decimal) -> tuple[Decimal, ...]:
    return tuple(base + per_user * max(0, users - flat_until) for users in USERS)


LOGON_MS = {
    "2.1": _rising(400, Decimal(6), Decimal(1000)),  # 1,600 at 500, 2,200 at 600
    "3.02": tuple(Decimal(ms) for ms in (1000, 1000, 1000, 1000, 1000, 1000, 1000, 1400, 2200, 3000)),
}
WORD_MS = {
    "2.1": _rising(600, Decimal(2), Decimal(1200)),
    "3.02": _rising(800, Decimal(2), Decimal(1200)),
}
SERVER_RUNS = (
    CapacityRun(
        "logon-load-2008r2-smb2.1",
        "FS02_logon_load_2008R2_SMB2.1.csv",
        date(2015, 3, 9),
        "2008 R2",
        "2.1",
        "SSD",
        "off",
        (9, 18, 27, 36, 45, 55, 66, 77, 86, 94),
        (18, 28, 38, 48, 58, 68, 80, 90, 98, 100),
        study=STUDY,
    ),
    CapacityRun(
        "logon-load-2012r2-smb3.02",
        "FS02_logon_load_2012R2_SMB3.02.csv",
        date(2015, 3, 10),
        "2012 R2",
        "3.02",
        "SSD",
        "off",
        (10, 19, 28, 37, 46, 56, 68, 84, 92, 97),
        (20, 30, 40, 50, 60, 72, 84, 96, 100, 100),
        study=STUDY,
    ),
)


def uploads() -> Iterator[DemoUpload]:
    yield from server_uploads(SERVER_RUNS, SEED * 700, SERVER)
    for index, run in enumerate(SERVER_RUNS):
        for number, client in enumerate(CLIENTS):
            rng = random.Random(SEED * 710 + index * 10 + number)
            rows = list(_client_rows(run, number, rng))
            yield DemoUpload(
                filename=f"{client}_logon_load_SMB{run.smb_dialect}.jsonl",
                content=("\n".join(json.dumps(row) for row in rows) + "\n").encode("utf-8"),
                kind="timings",
                scenario=run.scenario,
                host=client,
                role="client",
                run=run.run,
                steps=[],
            )


def _client_rows(run: CapacityRun, number: int, rng: random.Random) -> Iterator[dict[str, object]]:
    offset = timedelta(seconds=10 * number)
    repetition = 0
    for step, (users, began, _end) in enumerate(capacity_steps(run_start(run))):
        for name, means in (("logon", LOGON_MS), ("Word launch", WORD_MS)):
            mean = means[run.smb_dialect][step] + CLIENT_OFFSET_MS[number]
            durations = timings.repetitions(rng, mean, PER_STEP, 0.04)
            for k, micros in enumerate(durations):
                repetition += 1
                moment = (
                    began + FIRST_AT + EVERY * k + offset + (LAUNCH_AFTER if name != "logon" else timedelta())
                )
                yield {
                    "name": name,
                    "started_at": timings.stamp(moment),
                    "duration_ms": timings.ms(micros),
                    "repetition": repetition,
                    "host": CLIENTS[number],
                    "users": users,
                }


def step_means(dialect: str, name: str = "logon") -> Sequence[Decimal]:
    """The per-step mean over all clients the files are built to give (for docs and tests)."""
    return (LOGON_MS if name == "logon" else WORD_MS)[dialect]

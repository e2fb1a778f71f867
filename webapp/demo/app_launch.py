"""Application launch under folder redirection (seed 002): five repetitions per app and scenario."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from datetime import datetime, timedelta
from decimal import Decimal

from webapp.demo import timings
from webapp.demo.files import SEED, DemoUpload

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


def uploads() -> Iterator[DemoUpload]:
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
        moment = datetime(2015, 6, 1 + index, 10, 0, tzinfo=timings.MELBOURNE)
        rows: list[dict[str, object]] = []
        for app in APPS:
            mean = APP_BASELINE_MS[app] * factors[app]
            for repetition, micros in enumerate(
                timings.repetitions(rng, mean, APP_LAUNCH_REPETITIONS, 0.08), 1
            ):
                rows.append(
                    {
                        "name": f"{app} launch",
                        "started_at": timings.stamp(moment),
                        "duration_ms": timings.ms(micros),
                        "repetition": repetition,
                    }
                )
                # Close the app and let the machine settle before the next launch.
                moment += timedelta(microseconds=micros, seconds=20 + rng.randint(0, 10))
        document = (
            "{\n"
            '  "host": "CLIENT01",\n'
            f'  "scenario": {json.dumps(scenario)},\n'
            '  "timings": [\n    ' + ",\n    ".join(timings.json_rows(rows)) + "\n  ]\n}\n"
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

"""One demo file as an agent would upload it, and the seed every study's random draws start from."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

SEED = 2015


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

"""Typed hand-offs between pipeline stages: plain dataclasses, no database.

A parser turns one decoded file into a ``Parsed`` value:

* ``counters`` -- a wide table of counter samples (perfmon CSV, live
  samples): one ``CounterColumn`` per series and a *stream* of rows, so a
  500 MB file is never held in memory;
* ``measurements`` -- a stream of scalar results (timings, DiskSpd/fio
  figures, robocopy totals), each optionally naming its own scenario and host
  (a timings file may hold several scenarios) and its execution's parameters
  (a DiskSpd file may hold several runs at different block sizes);
* ``steps`` -- a load-step timeline (e.g. FSCT user counts) to apply to the
  upload's run;
* ``run_attributes`` -- parameters of the run (block size, threads, command
  line ...), stored on the run for grouping.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class CounterColumn:
    """One series of a counter table: ``\\\\host\\object(instance)\\counter``.

    ``object`` and ``counter`` are canonical English names when the parser
    knows the localised ones; ``source_path`` keeps the column exactly as the
    file spelled it.
    """

    host: str
    object: str
    instance: str
    counter: str
    source_path: str = ""


@dataclass(frozen=True)
class CounterRow:
    """One timestamp of a counter table.

    ``values[i]`` belongs to ``columns[i]``; ``None`` is a missing sample (the
    blank ``" "`` cells perfmon writes). Values are kept as the validated
    decimal text the file held (``float()`` accepted it) so loading can copy
    them without re-formatting. ``line`` is the 1-based line in the source file.
    """

    time: datetime  # timezone-aware, UTC
    values: list[str | None]
    line: int


@dataclass
class CounterTable:
    columns: list[CounterColumn]
    rows: Iterator[CounterRow]


@dataclass(frozen=True)
class Measurement:
    """One scalar result: a timing, a benchmark figure, a copy total."""

    time: datetime  # timezone-aware, UTC
    metric: str
    value: float
    unit: str
    repetition: int = 1
    subject: str = ""  # target, job or file the figure belongs to ("" = whole run)
    scenario: Mapping[str, str] | None = None  # overrides the upload's scenario
    host: str | None = None  # overrides the upload's host
    line: int | None = None
    # Parameters of the test execution this figure comes from (block size,
    # threads, queue depth ...) when one file holds several executions: each
    # distinct set becomes its own run, carrying them as run attributes.
    params: Mapping[str, str] | None = None
    # When the execution the figure sums up ended (a robocopy job's Ended), if later than
    # ``time``: its run then spans ``time`` to ``until``, not a single instant.
    until: datetime | None = None
    # Active user sessions when the figure was measured, as the client saw them: places the
    # figure on the user axis of capacity instead of the load step its time falls in.
    users: int | None = None


@dataclass(frozen=True)
class Step:
    """One load step of a run: ``users`` active between ``started_at`` and ``ended_at``."""

    users: int
    started_at: datetime
    ended_at: datetime


@dataclass
class Parsed:
    """Everything one parser extracted from one file."""

    parser: str
    counters: CounterTable | None = None
    measurements: Iterable[Measurement] = ()
    steps: list[Step] = field(default_factory=list)
    run_attributes: dict[str, Any] = field(default_factory=dict)
    tool: str = ""

"""FSCT curves: per scenario and load step, FSCT's own throughput, response times and overload.

The FSCT parser (``workers/pipeline/parsers/fsct``) stores, per step and stamped
at the step's start, ``fsct.throughput_sps`` (scenarios/s), ``fsct.overload_pct``
(%), ``fsct.overloaded`` (0/1), ``fsct.errors`` and ``fsct.errors_pct`` when the
file has them, and ``fsct.response_ms`` per FSCT scenario (its name is the
measurement's subject; FSCT's "scenarios" are its operations, such as an
Explorer upload -- here called *operations* so they are not mistaken for
Headroom's scenarios). A figure belongs to the load step whose window holds its
time, so its users are that step's.

FSCT's controller reports one figure per step for all its clients together, so a
run normally holds one host's figures. Should several hosts report FSCT figures
into one run (each its own clients' share), they combine by the rules of
``analysis.hosts``: throughput and error counts are summed, overload, error
percentages and response times averaged, and the step is overloaded when any
host says so. Repeated runs of a scenario are averaged per user count; a user
count is overloaded when any run was overloaded there (as the ``overload``
resource limit reads it, ``analysis.limits``).

The overload step is the first step, by users, that is overloaded; the last good
step is the one just below it (none when the first step is already overloaded).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db import connection

from webapp.analysis.hosts import combine, kind
from webapp.core.models import Campaign, Run

METRICS = (
    "fsct.throughput_sps",
    "fsct.overload_pct",
    "fsct.overloaded",
    "fsct.errors",
    "fsct.errors_pct",
    "fsct.response_ms",
)
STEP_FIGURES = ("throughput_sps", "overload_pct", "errors", "errors_pct")
OVERALL = "overall"  # the operation name of a response time stored without one
UNITS = {"throughput_sps": "scenarios/s", "overload_pct": "%", "errors_pct": "%", "response_ms": "ms"}
METHOD = (
    "FSCT's own figures per load step, as its controller reported them: throughput in scenarios per second, "
    "the mean response time of each FSCT operation in ms, overload (the share of scenarios that could not run "
    "on time) and errors. Repeated runs of a scenario are averaged per user count; a step is overloaded when "
    "any run reports overload there. The overload step is the first overloaded step; the step before it is "
    "the last one FSCT carried."
)


@dataclass
class FsctStep:
    users: int
    throughput_sps: float | None
    overload_pct: float | None
    overloaded: bool
    errors: float | None
    errors_pct: float | None
    responses: list[dict[str, Any]]  # [{operation, ms}] in the scenario's operation order
    runs: int
    runs_overloaded: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "users": self.users,
            "throughput_sps": self.throughput_sps,
            "overload_pct": self.overload_pct,
            "overloaded": self.overloaded,
            "errors": self.errors,
            "errors_pct": self.errors_pct,
            "responses": self.responses,
            "runs": self.runs,
            "runs_overloaded": self.runs_overloaded,
        }


@dataclass
class FsctCurve:
    scenario_id: int
    label: str
    dims: dict[str, str]
    operations: list[str]
    steps: list[FsctStep]
    run_ids: list[int] = field(default_factory=list)
    hosts: int = 1
    combined: str = ""  # how several hosts' figures in one run became one (analysis.hosts), "" for one

    @property
    def overload_step(self) -> FsctStep | None:
        return next((s for s in self.steps if s.overloaded), None)

    @property
    def last_good_step(self) -> FsctStep | None:
        first = self.overload_step
        if first is None:
            return self.steps[-1] if self.steps else None
        index = self.steps.index(first)
        return self.steps[index - 1] if index else None

    def overload_text(self) -> str:
        first, good = self.overload_step, self.last_good_step
        if not self.steps:
            return "no FSCT steps"
        if first is None:
            return f"no overload up to {self.steps[-1].users:,} users"
        if good is None:
            return f"overloaded from the first step, {first.users:,} users"
        return f"overloaded at {first.users:,} users; {good.users:,} users the last step without"

    def as_dict(self) -> dict[str, Any]:
        first, good = self.overload_step, self.last_good_step
        return {
            "scenario": self.scenario_id,
            "label": self.label,
            "dims": self.dims,
            "operations": self.operations,
            "overload_users": first.users if first else None,
            "last_good_users": good.users if good and first else None,
            "overload_text": self.overload_text(),
            "runs_used": len(self.run_ids),
            "run_ids": self.run_ids,
            "hosts": self.hosts,
            "combined": self.combined,
            "steps": [s.as_dict() for s in self.steps],
        }


# (run, users, host, metric, subject) -> value
Figures = dict[tuple[int, int, int, str, str], float]


def _figures(runs: list[int]) -> Figures:
    """Each FSCT figure with the users of the step holding it, averaged over repetitions (one query)."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT m.run_id, st.users, m.host_id, m.metric, m.subject, avg(m.value)
            FROM measurement m
            JOIN core_runstep st ON st.run_id = m.run_id
             AND m.time >= st.started_at AND (st.ended_at IS NULL OR m.time < st.ended_at)
            WHERE m.run_id = ANY(%s) AND m.metric = ANY(%s)
            GROUP BY m.run_id, st.users, m.host_id, m.metric, m.subject
            """,
            [runs, list(METRICS)],
        )
        return {(r, u, h, metric, subject): value for r, u, h, metric, subject, value in cursor.fetchall()}


def _per_run(
    figures: Figures,
) -> tuple[dict[tuple[int, int, str, str], float], dict[int, set[int]], set[str]]:
    """One value per run, users, metric and subject, combining hosts (module docstring); the hosts per run."""
    by_host: dict[tuple[int, int, str, str], dict[int, float]] = defaultdict(dict)
    hosts: dict[int, set[int]] = defaultdict(set)
    for (run, users, host, metric, subject), value in figures.items():
        by_host[(run, users, metric, subject)][host] = value
        hosts[run].add(host)
    combined: dict[tuple[int, int, str, str], float] = {}
    hows: set[str] = set()
    for key, values in by_host.items():
        metric = key[2]
        if metric == "fsct.overloaded":
            value, how = max(values.values()), "any" if len(values) > 1 else ""
        else:
            what = kind(metric, UNITS.get(metric.removeprefix("fsct."), ""))
            value, how = combine(what, values)
        combined[key] = value
        if how:
            hows.add(how)
    return combined, hosts, hows


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def fsct_curves(campaign: Campaign) -> list[FsctCurve]:
    """Per scenario with FSCT results: the steps' throughput, response times and overload, scenarios in order."""
    runs = {
        run.pk: run
        for run in Run.objects.filter(campaign=campaign, steps__isnull=False)
        .select_related("scenario")
        .distinct()
    }
    if not runs:
        return []
    per_run, hosts, hows = _per_run(_figures(list(runs)))
    # scenario -> users -> metric -> subject -> [value per run]
    grouped: dict[int, dict[int, dict[str, dict[str, list[float]]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    )
    runs_at: dict[int, dict[int, set[int]]] = defaultdict(lambda: defaultdict(set))
    scenario_runs: dict[int, set[int]] = defaultdict(set)
    for (run_id, users, metric, subject), value in per_run.items():
        owner = runs[run_id].scenario_id
        grouped[owner][users][metric.removeprefix("fsct.")][subject].append(value)
        runs_at[owner][users].add(run_id)
        scenario_runs[owner].add(run_id)
    curves = []
    for scenario_id in sorted(grouped):
        scenario = next(r.scenario for r in runs.values() if r.scenario_id == scenario_id)
        steps_in = grouped[scenario_id]
        operations = sorted(
            {
                subject or OVERALL
                for figures in steps_in.values()
                for subject in figures.get("response_ms", {})
            }
        )
        steps = []
        for users in sorted(steps_in):
            figures = steps_in[users]
            flags = figures.get("overloaded", {}).get("", [])
            responses = {
                subject or OVERALL: _mean(v) for subject, v in figures.get("response_ms", {}).items()
            }
            steps.append(
                FsctStep(
                    users=users,
                    **{name: _mean(figures.get(name, {}).get("", [])) for name in STEP_FIGURES},
                    overloaded=any(f > 0 for f in flags),
                    responses=[{"operation": op, "ms": responses.get(op)} for op in operations],
                    runs=len(runs_at[scenario_id][users]),
                    runs_overloaded=sum(1 for f in flags if f > 0),
                )
            )
        ids = sorted(scenario_runs[scenario_id])
        curves.append(
            FsctCurve(
                scenario_id,
                scenario.label,
                scenario.dims,
                operations,
                steps,
                ids,
                max(len(hosts[r]) for r in ids),
                ", ".join(sorted(hows)),
            )
        )
    return curves


def has_fsct(campaign: Campaign) -> bool:
    """Whether any run of the campaign holds an FSCT figure (the capacity page's FSCT section shows then)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT EXISTS (SELECT 1 FROM measurement m JOIN core_run r ON r.id = m.run_id"
            " WHERE r.campaign_id = %s AND m.metric = 'fsct.throughput_sps')",
            [campaign.pk],
        )
        return bool(cursor.fetchone()[0])


def fsct_body(campaign: Campaign) -> dict[str, Any]:
    """``GET /api/v1/campaigns/{slug}/fsct``: the curves of every scenario with FSCT results."""
    return {
        "campaign": campaign.slug,
        "units": {
            "throughput_sps": "scenarios/s",
            "response_ms": "ms",
            "overload_pct": "%",
            "errors": "",
            "errors_pct": "%",
        },
        "method": METHOD,
        "scenarios": [c.as_dict() for c in fsct_curves(campaign)],
    }

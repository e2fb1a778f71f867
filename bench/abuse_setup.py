"""What ``bench/abuse.py`` needs in its database, and its member-form races (issue 26 item 6).

Runs in the benchmark's process after ``django.setup()``: it writes the
throw-away database the gunicorn it measures reads. Signed-in owners are real
sessions (``force_login`` stores them in the session table) sent with a CSRF
cookie and its header, as a browser sends them.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from bench import hostile as h
from bench.exchange import Answer, at_once, exchange

if TYPE_CHECKING:
    from django.contrib.auth.models import User

FIXTURE = (
    Path(__file__).resolve().parent.parent.parent
    / "shared/fixtures/real/perfmon_csv/iversonlu_SystemPerformance_DCS_ChinaTZ_2633cols.csv"
)
SERIES = 12  # the most a traces link freezes (webapp/api/traces.py MAX_SERIES)


@dataclass
class Seeded:
    campaign: str
    other_campaign: str  # the parallel run's uploads go here, so none is a duplicate
    token: str
    run: int  # a run for load steps
    share_path: str  # a traces share link of the ingested perfmon log


def wait_idle(timeout: float = 900) -> None:
    """Until the worker has settled every upload (stored or failed)."""
    from webapp.core.models import Upload

    deadline = time.monotonic() + timeout
    while Upload.objects.filter(status__in=["received", "queued", "parsing"]).exists():
        if time.monotonic() > deadline:
            raise SystemExit(f"uploads not settled within {timeout:.0f} s")
        time.sleep(0.5)


def seed(port: int) -> Seeded:
    from webapp.analysis.listings import traced_runs
    from webapp.core.models import Campaign, Project, Run, Scenario
    from webapp.core.models.tokens import AgentToken
    from webapp.sharing.models import ShareLink
    from webapp.sharing.traces import traces_filters
    from webapp.timeseries.models import CounterSeries

    project = Project.objects.create(slug="abuse", name="Abuse")
    campaign = Campaign.objects.create(project=project, slug="abuse", name="Abuse")
    Campaign.objects.create(project=project, slug="abuse-2", name="Abuse 2")
    _, token = AgentToken.issue(project, "abuse")
    run = Run.objects.create(campaign=campaign, scenario=Scenario.for_dims(campaign, {}), name="steps")
    body = h.multipart({"campaign": campaign.slug, "host": "FS01"}, FIXTURE.name, FIXTURE.read_bytes())
    answer = exchange(
        port,
        "POST",
        "/api/v1/uploads",
        body,
        {"Authorization": f"Bearer {token}", "Content-Type": h.MULTIPART},
    )
    assert answer.status == 202, answer
    wait_idle()
    traced = traced_runs(campaign)[0]
    series = CounterSeries.objects.filter(host__runs=traced).order_by("pk").values_list("pk", flat=True)
    filters = traces_filters(campaign, {"run": traced.pk, "series": ",".join(map(str, series[:SERIES]))})
    _, plain = ShareLink.issue(campaign, "traces", filters)
    return Seeded(campaign.slug, "abuse-2", token, run.pk, f"/s/{plain}/")


def signed_in(user: User) -> dict[str, str]:
    """Headers of a signed-in browser: its session cookie, a CSRF cookie and the CSRF header."""
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    csrf = secrets.token_hex(16)  # 32 characters: an unmasked CSRF secret
    return {
        "Cookie": f"{settings.SESSION_COOKIE_NAME}={session}; {settings.CSRF_COOKIE_NAME}={csrf}",
        "X-CSRFToken": csrf,
        "Content-Type": "application/x-www-form-urlencoded",
    }


def post_form(port: int, path: str, form: str, headers: dict[str, str]) -> Answer:
    return exchange(port, "POST", path, form.encode(), headers)


def member_races(port: int, rounds: int) -> list[tuple[str, Answer, int, bool]]:
    """Two owners demoting each other at once; one owner adding the same new name twice at once.

    Each round on a fresh project. A row per race: its label, its slowest
    answer, how many were sent, and whether every answer and the outcome were
    right (one owner left; one account made).
    """
    from django.contrib.auth import get_user_model

    from webapp.core.models import Membership, Project

    users = get_user_model().objects
    demotes: list[Answer] = []
    adds: list[Answer] = []
    demotes_ok = adds_ok = True
    for round_ in range(rounds):
        project = Project.objects.create(slug=f"race-{round_}", name=f"Race {round_}")
        a, b = (users.create_user(f"owner{round_}{x}", password=secrets.token_hex(8)) for x in "ab")
        ma = Membership.objects.create(project=project, user=a, role="owner")
        mb = Membership.objects.create(project=project, user=b, role="owner")
        base = f"/accounts/projects/{project.slug}/members"
        as_a, as_b = signed_in(a), signed_in(b)
        answers = at_once(
            [
                partial(post_form, port, f"{base}/{mb.pk}/role", "role=viewer", as_a),
                partial(post_form, port, f"{base}/{ma.pk}/role", "role=viewer", as_b),
            ]
        )
        demotes += answers
        owners = list(Membership.objects.filter(project=project, role="owner").values_list("user", flat=True))
        demotes_ok &= {x.status for x in answers} <= {302, 404} and len(owners) == 1
        add, owner = f"username=newcomer{round_}&role=viewer", as_a if owners[0] == a.pk else as_b
        answers = at_once([partial(post_form, port, f"{base}/add", add, owner)] * 2)
        adds += answers
        adds_ok &= [x.status for x in answers] == [302, 302]
        adds_ok &= users.filter(username=f"newcomer{round_}").count() == 1
    worst = lambda answers: max(answers, key=lambda x: x.seconds)  # noqa: E731
    return [
        ("7 two owners demoting each other at once", worst(demotes), len(demotes), demotes_ok),
        ("7 the same new user name added twice at once", worst(adds), len(adds), adds_ok),
    ]

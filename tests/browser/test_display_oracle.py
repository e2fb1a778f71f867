"""Issue 20's display oracle: every figure a page prints with a unit is the API's value for it.

One demo load, one browser: every page of every_page (the dashboard and one share report per view) is
opened and every printed figure is read back. A marked figure (data-key, see tests/browser/figures.py)
must equal the value at its JSON pointer in its API answer, converted into the unit printed beside it
(or in its row's Unit cell) and rounded as printed; a figure printed with a unit that carries no mark
fails the test, so a new figure cannot slip by unchecked.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from tests.browser.every_page import every_page, open_every_page
from tests.browser.figures import (
    Answers,
    Printed,
    assert_printed,
    per_printed,
    pointer,
    printed_figures,
    scan,
    seconds,
)

pytestmark = pytest.mark.browser


def check(item: Printed, answer: Any) -> None:
    where = f"{item.where} {item.text!r} ({' '.join(item.keys)})"
    assert "undefined" not in " ".join(item.keys), where
    values = [pointer(answer, key) for key in item.keys]
    if len(values) == 1:
        assert item.value == values[0], f"{where}: data-value {item.value!r}, the API {values[0]!r}"
    if all(isinstance(v, str | list) for v in values):  # the API's own wording (saturation_text, remarks)
        words = " ".join(v if isinstance(v, str) else " ".join(v) for v in values)
        assert item.text == words, f"{where}: the API says {words!r}"
        return
    if item.text == "—":
        assert values == [None] * len(values), where
        return
    durations = [seconds(part) for part in item.text.split(", ")]
    if set(item.units) == {"s"} and None not in durations:  # "1 h 2 min 3 s", ...: whole seconds
        assert durations == [round(v) for v in values], f"{where}: the API {values} s"
        return
    if item.text.startswith("< ") and len(values) == 1:  # "< 0.001": a bound, not a rounding
        assert values[0] < float(item.text[2:].replace(",", "")), where
        return
    figures = printed_figures(item.text, item.row_unit)
    # Figures past the marked ones are a bracketed remark ("~1,031 users (extrapolated beyond 1,000)").
    assert len(figures) >= len(values), f"{where}: prints {len(figures)} figures for {len(values)} values"
    for (number, printed), value, unit in zip(figures, values, item.units, strict=False):
        # A count (no unit) is a count whatever its row's Unit cell says of the row's measurements.
        assert_printed(number, value, per_printed(unit, printed) if unit else 1.0, where)


def test_every_figure_printed_with_a_unit_is_the_apis_value(page, site):
    unmarked: list[str] = []
    marked: Counter[str] = Counter()
    labels = [s["label"] for s in site.client.get("/api/v1/campaigns/demo/runs").json()["scenarios"]]
    pages = every_page(site)
    answers = Answers(site.client, f"/api/v1/campaigns/{site.campaign.slug}")
    for item in open_every_page(page, site, pages):
        if item.name == "capacity":
            page.wait_for_selector("#sizing-table td.servers")
            page.wait_for_selector("#fsct[data-state=ready]")
        figures, strays = scan(page, labels)
        unmarked += [f"{item.name}: {s['where']} {s['text']!r}" for s in strays]
        for figure in figures:
            assert figure.api, f"{item.name}: {figure.where} names no API answer"
            check(figure, answers[figure.api])
            marked[item.name] += 1
    assert unmarked == [], "\n".join(unmarked)
    # Every share report is read back too, its capacity answer, sizing, comparisons, copies and history among them.
    assert {p.name for p in pages if p.path.startswith("/s/")} <= {n for n, count in marked.items() if count}
    assert {"capacity", "sizing", "compare", "copies", "history", "fsct"} <= {
        a.split("?")[0].rsplit("/", 1)[1] for a in answers.fetched
    }
    print(dict(marked))


def test_every_logon_phase_figure_is_the_apis_value(page, phases_site):
    """The "Where the logon time goes" section (issue 21 item 6), on the compare page and on a compare share
    link that froze the other baseline: every figure it prints is read back as above."""
    from webapp.core.models import Scenario
    from webapp.sharing import report
    from webapp.sharing.models import ShareLink

    site = phases_site
    on = Scenario.objects.get(campaign=site.campaign, redirection="on", extras__study="logon-phases")
    _, token = ShareLink.issue(
        site.campaign, "compare", report.compare_filters({"baseline": on.pk, "phases_baseline": on.pk})
    )
    labels = [s["label"] for s in site.client.get("/api/v1/campaigns/demo/runs").json()["scenarios"]]
    campaign_api = f"/api/v1/campaigns/{site.campaign.slug}"
    answers = Answers(site.client, campaign_api)
    checked: Counter[str] = Counter()
    for path in ("/campaigns/demo/compare/", f"/s/{token}/"):
        page.goto(site.url + path)
        page.wait_for_selector("body[data-state=ready] #logon-phases[data-state=ready]")
        figures, strays = scan(page, labels)
        assert strays == [], strays
        for figure in figures:
            api = answers.path(figure.api)
            if "/logon-phases" not in api:
                continue
            check(figure, answers[api])
            checked[api] += 1
    # Means (with stdev and n) of 8 phase rows x 2 scenarios, less 2 missing; 7 comparisons x (n, factor, interval).
    assert checked == {
        f"{campaign_api}/logon-phases": 16 - 2 + 7 * 3,
        f"{campaign_api}/logon-phases?baseline={on.pk}": 16 - 2 + 7 * 3,
    }


def test_every_user_experience_figure_is_the_apis_value(page, logon_site):
    """The "User experience" section (issue 21 item 4) on the "Logon load 2015" demo: the capacity page with
    ``timing=logon`` and a capacity share link that froze ``factor=1.5``; every figure either page prints is
    read back as above, and none is printed unmarked."""
    from webapp.sharing import report
    from webapp.sharing.models import ShareLink

    site = logon_site
    _, token = ShareLink.issue(
        site.campaign, "capacity", report.capacity_filters({"timing": "logon", "factor": "1.5"})
    )
    labels = [s["label"] for s in site.client.get("/api/v1/campaigns/demo-logon/runs").json()["scenarios"]]
    campaign_api = f"/api/v1/campaigns/{site.campaign.slug}"
    answers = Answers(site.client, campaign_api)
    checked: Counter[str] = Counter()
    for path in ("/campaigns/demo-logon/capacity/?timing=logon", f"/s/{token}/"):
        page.goto(site.url + path)
        page.wait_for_selector("body[data-state=ready] #ux[data-state=ready]")
        if not path.startswith("/s/"):
            page.wait_for_selector("#sizing-table td.servers")
        figures, strays = scan(page, labels)
        assert strays == [], strays
        for figure in figures:
            api = answers.path(figure.api)
            check(figure, answers[api])
            if "timing=" in api:
                checked[api] += 1
    # Per scenario (2): 10 steps x 6 figures; saturation, interval, baseline, threshold; limiting, runner-up, margin.
    assert checked == {
        f"{campaign_api}/capacity?timing=logon&baseline=first_step&delta_ms=1000": 2 * (60 + 4 + 3),
        f"{campaign_api}/capacity?timing=logon&baseline=first_step&factor=1.5": 2 * (60 + 4 + 3),
    }

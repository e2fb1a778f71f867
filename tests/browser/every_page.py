"""Every page a person can reach, for the layout and accessibility walks (API docs excluded)."""

from __future__ import annotations

from dataclasses import dataclass

from tests.browser.conftest import Site
from tests.factories import make_user
from tests.webapp.dashboard.demo import add_demo_series, add_fsct_results
from webapp.core.models import Scenario
from webapp.sharing import report
from webapp.sharing.history import history_filters
from webapp.sharing.models import ShareLink

# (name, path) of the pages a signed-in owner of the demo project sees.
SIGNED_IN = (
    ("home", "/"),
    ("campaign-overview", "/campaigns/demo/"),
    ("capacity", "/campaigns/demo/capacity/"),
    ("compare", "/campaigns/demo/compare/"),
    ("block-size", "/campaigns/demo/block-size/"),
    ("traces", "/campaigns/demo/traces/"),
    ("copies", "/campaigns/demo/copies/"),
    ("uploads", "/campaigns/demo/uploads/"),
    ("campaign-settings", "/campaigns/demo/settings/"),
    ("series-history", "/series/demo-series/history/"),
    ("new-campaign", "/campaigns/new"),
    ("share-links", "/campaigns/demo/shares/"),
    ("tokens", "/accounts/projects/demo/tokens/"),
    ("members", "/accounts/projects/demo/members/"),
    ("notifications", "/accounts/projects/demo/notifications/"),
    ("projects", "/accounts/projects/"),  # with the form that creates a project (staff)
    ("account", "/accounts/password/"),
)
# Pages for visitors without an account.
ANONYMOUS = (
    ("login", "/accounts/login/"),
    ("password-reset", "/accounts/password/reset/"),
)


@dataclass(frozen=True)
class Page:
    name: str
    path: str
    signed_in: bool


def every_page(site: Site) -> list[Page]:
    """The pages to walk; makes the signed-in user a staff owner and issues one share link per view (the
    capacity one with a sizing, the compare one against the app-launch study's unredirected scenario, the
    series history one of the demo and a later campaign, ``add_demo_series``); the demo gets the FSCT fixture
    files' results (``add_fsct_results``) so the FSCT section is walked too."""
    user = make_user(site.campaign.project, role="owner")
    user.is_staff = True  # staff may also create projects
    user.save()
    site.client.force_login(user)
    launches = [
        s for s in Scenario.objects.filter(campaign=site.campaign) if s.dims.get("study") == "app-launch"
    ]
    baseline = next(s for s in launches if s.dims.get("redirection") == "none")
    sizing = {"users": 3000, "target": 60, "redundancy": 1}
    later = add_demo_series(site.campaign)
    add_fsct_results(site.campaign)  # the capacity page's and its share reports' FSCT section
    history = history_filters(later, {}, baseline="")
    shares = [
        ("share-overview", ShareLink.issue(site.campaign, "overview", {})[1]),
        ("share-capacity", ShareLink.issue(site.campaign, "capacity", report.capacity_filters(sizing))[1]),
        (
            "share-compare",
            ShareLink.issue(site.campaign, "compare", report.compare_filters({"baseline": baseline.pk}))[1],
        ),
        ("share-blocksize", ShareLink.issue(site.campaign, "blocksize", {})[1]),
        ("share-copies", ShareLink.issue(site.campaign, "copies", {})[1]),
        ("share-history", ShareLink.issue(later, "history", history)[1]),
    ]
    return [
        *(Page(name, path, True) for name, path in SIGNED_IN),
        *(Page(name, path, False) for name, path in ANONYMOUS),
        *(Page(name, f"/s/{token}/", False) for name, token in shares),
    ]


def open_every_page(page, site: Site, pages: list[Page]):
    """Yield each page loaded (charts drawn where it has any), signed in or not as the page wants."""
    session = site.client.cookies["sessionid"].value
    page.on(
        "response",
        lambda r: site.console.append(f"{r.status} {r.url}") if r.status >= 400 else None,
    )
    for item in pages:
        page.context.clear_cookies()
        if item.signed_in:
            page.context.add_cookies([{"name": "sessionid", "value": session, "url": site.url}])
        response = page.goto(site.url + item.path)
        assert response is not None and response.status == 200, (item.path, response and response.status)
        page.wait_for_load_state("networkidle")
        # The capacity page's FSCT section draws from its own answer, after the page's.
        page.wait_for_function(
            "() => !['loading'].includes(document.body.dataset.state || '')"
            " && !document.querySelector('#fsct[data-state=loading]')"
        )
        yield item

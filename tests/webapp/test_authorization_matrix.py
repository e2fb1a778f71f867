"""Who may do what: every URL x every kind of caller -> the expected status.

Adding a URL without adding its row here fails ``test_every_url_has_a_row``.
Callers: anonymous; viewer, editor and owner of project A; the owner of
project B; an agent token of A and of B; and share links (valid, expired,
revoked, and one of B's campaign). Share-link holders have no session and
send no token, so outside ``/s/<token>/`` they are anonymous.
"""

from __future__ import annotations

import io
import json
from datetime import timedelta

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone

from tests.factories import make_campaign, make_token, make_user
from tests.ingest import ingest_bytes
from webapp.core.models import Host, Note, Series, WorkerHeartbeat
from webapp.sharing.models import ShareLink
from webapp.timeseries.models import CounterSeries

pytestmark = pytest.mark.django_db

CALLERS = (
    "anon",
    "viewer",
    "editor",
    "owner",
    "other",
    "agent",
    "agent_b",
    "share",
    "share_expired",
    "share_revoked",
    "share_b",
)
SHARES = ("share", "share_expired", "share_revoked", "share_b")
MEMBERS = ("viewer", "editor", "owner")

TIMINGS = b'[{"name": "logon", "started_at": "2015-06-01T10:00:00Z", "duration_ms": 1000, "repetition": 1}]'


def row(anon, viewer, editor, owner, other, agent, agent_b, share=None):
    """Statuses in CALLERS order; share holders behave as anonymous unless given."""
    statuses = dict(zip(CALLERS[:7], (anon, viewer, editor, owner, other, agent, agent_b), strict=True))
    for name in SHARES:
        statuses[name] = anon if share is None else share[name]
    return statuses


# Page for signed-in members of the project: login redirect, 200, 404 for strangers.
MEMBER_PAGE = row(302, 200, 200, 200, 404, 302, 302)
EDITOR_PAGE = row(302, 404, 200, 200, 404, 302, 302)
EDITOR_ACTION = row(302, 404, 302, 302, 404, 302, 302)
OWNER_PAGE = row(302, 404, 404, 200, 404, 302, 302)
OWNER_ACTION = row(302, 404, 404, 302, 404, 302, 302)
SIGNED_IN = row(302, 200, 200, 200, 200, 302, 302)
PUBLIC = row(200, 200, 200, 200, 200, 200, 200)
API_READ = row(401, 200, 200, 200, 404, 200, 404)
API_WRITE = row(401, 403, 202, 202, 404, 202, 404)

# name -> (method, expected statuses)
MATRIX: dict[str, tuple[str, dict[str, int]]] = {
    "healthz": ("get", PUBLIC),
    "metrics": ("get", row(404, 404, 404, 404, 404, 404, 404)),  # off unless a metrics token is set
    "openapi-json": ("get", PUBLIC),
    "openapi-view": ("get", PUBLIC),
    "api-root": ("get", row(404, 404, 404, 404, 404, 404, 404)),
    "create_upload": ("post", API_WRITE),
    "get_upload": ("get", API_READ),
    "upload_data": ("get", API_READ),
    "post_samples": ("post", API_WRITE),
    "post_timings": ("post", API_WRITE),
    "whoami": ("get", row(401, 200, 200, 200, 200, 200, 200)),
    "create_campaign": ("post", row(401, 403, 201, 201, 404, 201, 404)),
    "list_campaigns": ("get", row(401, 200, 200, 200, 200, 200, 200)),  # each caller lists its own
    "get_campaign": ("get", API_READ),
    "campaign_runs": ("get", API_READ),
    "campaign_uploads_page": ("get", API_READ),
    "campaign_block_size": ("get", API_READ),
    "campaign_copies": ("get", API_READ),
    "campaign_traces": ("get", API_READ),
    "create_run": ("post", row(401, 403, 200, 200, 404, 200, 404)),
    "get_run": ("get", API_READ),
    "post_steps": ("post", row(401, 403, 200, 200, 404, 200, 404)),
    "capacity": ("get", API_READ),
    "sizing": ("get", API_READ),
    "compare": ("get", API_READ),
    "fsct": ("get", API_READ),
    "logon_phases_view": ("get", API_READ),
    "list_series": ("get", API_READ),  # a run's counter series
    "list_your_series": ("get", row(401, 200, 200, 200, 200, 200, 200)),  # each caller lists its own
    "get_series": ("get", API_READ),
    "update_series": ("put", row(401, 403, 200, 200, 404, 200, 404)),
    "history": ("get", API_READ),
    "campaign_history": ("get", API_READ),
    "list_notes": ("get", API_READ),
    "create_note": ("post", row(401, 403, 201, 201, 404, 201, 404)),
    "delete_note": ("delete", row(401, 403, 204, 204, 404, 204, 404)),
    "get_trace": ("get", API_READ),
    "get_inventory": ("get", API_READ),  # a machine of the project, through one of its campaigns
    "put_inventory": ("put", row(401, 403, 200, 200, 404, 200, 404)),
    "get_correlation": ("get", API_READ),
    "admin": ("get", row(302, 302, 302, 302, 302, 302, 302)),  # staff only
    "login": ("get", PUBLIC),
    "logout": ("post", row(302, 302, 302, 302, 302, 302, 302)),
    "password_change": ("get", SIGNED_IN),
    "password_change_done": ("get", SIGNED_IN),
    "password_reset": ("get", PUBLIC),
    "password_reset_done": ("get", PUBLIC),
    "password_reset_confirm": ("get", PUBLIC),  # an invalid link renders a clear page
    "password_reset_complete": ("get", PUBLIC),
    "projects": ("get", SIGNED_IN),
    "new-project": ("post", row(302, 403, 403, 403, 403, 302, 302)),  # staff only
    "members": ("get", OWNER_PAGE),
    "add-member": ("post", OWNER_ACTION),
    "member-role": ("post", OWNER_ACTION),
    "remove-member": ("post", OWNER_ACTION),
    "notifications": ("get", OWNER_PAGE),
    "save-notifications": ("post", OWNER_ACTION),
    "rotate-secret": ("post", OWNER_ACTION),
    "test-notification": ("post", OWNER_ACTION),
    "subscriptions": ("post", OWNER_ACTION),
    "tokens": ("get", EDITOR_PAGE),
    "create-token": ("post", EDITOR_ACTION),
    "revoke-token": ("post", EDITOR_ACTION),
    "list": ("get", EDITOR_PAGE),
    "create": ("post", EDITOR_ACTION),
    "revoke": ("post", EDITOR_ACTION),
    "shared": (
        "get",
        row(
            404,
            404,
            404,
            404,
            404,
            404,
            404,
            share={"share": 200, "share_expired": 410, "share_revoked": 410, "share_b": 200},
        ),
    ),
    "home": ("get", row(302, 200, 200, 200, 200, 302, 302)),
    "new-campaign": ("get", SIGNED_IN),
    "campaign-settings": ("get", EDITOR_PAGE),
    "edit-machine": ("get", EDITOR_PAGE),  # a machine of one of the campaign's runs
    "campaign": ("get", MEMBER_PAGE),
    "capacity-page": ("get", MEMBER_PAGE),
    "compare-page": ("get", MEMBER_PAGE),
    "blocksize": ("get", MEMBER_PAGE),
    "traces": ("get", MEMBER_PAGE),
    "copies": ("get", MEMBER_PAGE),
    "uploads": ("get", MEMBER_PAGE),
    "reparse-upload": ("post", row(302, 403, 302, 302, 404, 302, 302)),
    "delete-upload": ("post", row(302, 403, 302, 302, 404, 302, 302)),
    "series-history": ("get", MEMBER_PAGE),
    "series-baseline": ("post", EDITOR_ACTION),
    "add-note": ("post", EDITOR_ACTION),
    "delete-note": ("post", EDITOR_ACTION),
}


def routes():
    """(key, route) for every URL the project serves; dashboard names are made unique."""
    found = []

    def walk(patterns, prefix, namespace):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                if pattern.namespace == "admin":
                    found.append(("admin", prefix + str(pattern.pattern)))
                    continue
                walk(pattern.url_patterns, prefix + str(pattern.pattern), pattern.namespace or namespace)
            elif isinstance(pattern, URLPattern):
                key = pattern.name or ""
                if namespace == "dashboard" and key in ("capacity", "compare"):
                    key += "-page"
                found.append((key, prefix + str(pattern.pattern)))

    walk(get_resolver().url_patterns, "/", None)
    return found


def test_every_url_has_a_row():
    keys = {key for key, _ in routes()}
    assert keys == set(MATRIX), (
        f"missing rows: {sorted(keys - set(MATRIX))}; stale rows: {sorted(set(MATRIX) - keys)}"
    )


@pytest.fixture
def world(client, settings):
    settings.SECURE_SSL_REDIRECT = False
    a = make_campaign()
    b = make_campaign()
    upload = ingest_bytes(a, TIMINGS, scenario={"av": "off"}, host="C1", role="client")
    samples = {
        "samples": [
            {"time": f"2015-06-01T10:00:0{i}Z", "counter": f"\\\\C1\\{name}", "value": i}
            for i in range(3)
            for name in ("Processor(_Total)\\% Processor Time", "Memory\\Available MBytes")
        ]
    }
    ingest_bytes(a, json.dumps(samples).encode(), scenario={"av": "off"}, host="C1", kind="samples")
    series = list(CounterSeries.objects.filter(host__project=a.project).values_list("pk", flat=True))
    assert len(series) == 2
    WorkerHeartbeat.objects.create(hostname="w@test", seen_at=timezone.now())
    # A series named like the campaign (the routes' one <slug>), holding it; a note on it.
    a.series = Series.objects.create(project=a.project, slug=a.slug, name="A's series")
    a.save()
    note = Note.objects.create(project=a.project, campaign=a, text="matrix note")
    page_note = Note.objects.create(project=a.project, campaign=a, text="removed from the page")
    users = {role: make_user(a.project, role=role) for role in MEMBERS}
    users["other"] = make_user(b.project, role="owner")
    token_a, plain_a = make_token(a.project)
    _, plain_b = make_token(b.project)
    link_id = ShareLink.issue(a, "overview", {})[0].pk
    shares = {
        "share": ShareLink.issue(a, "overview", {})[1],
        "share_expired": ShareLink.issue(a, "overview", {}, expires_at=timezone.now() - timedelta(days=1))[1],
        "share_revoked": ShareLink.issue(a, "overview", {}, revoked_at=timezone.now())[1],
        "share_b": ShareLink.issue(b, "overview", {})[1],
    }
    return {
        "a": a,
        "upload": upload,
        "users": users,
        "tokens": {"agent": plain_a, "agent_b": plain_b},
        "token_id": token_a.pk,
        "member_id": users["viewer"].memberships.get().pk,
        "link_id": link_id,
        "shares": shares,
        "series": series,
        "note_id": note.pk,
        "page_note_id": page_note.pk,
        "host_id": Host.objects.get(project=a.project, name="C1").pk,
    }


def url_for(route: str, world, caller: str) -> str:
    if route.startswith("/accounts/projects/"):
        route = route.replace("<slug:slug>", world["a"].project.slug)
    values = {
        "<slug:slug>": world["a"].slug,
        "<slug>": world["a"].slug,
        "<upload_id>": str(world["upload"].pk),
        "<int:upload_id>": str(world["upload"].pk),
        "<run_id>": str(world["upload"].run_id),
        "<int:token_id>": str(world["token_id"]),
        "<int:member_id>": str(world["member_id"]),
        "<int:link_id>": str(world["link_id"]),
        "<note_id>": str(world["note_id"]),
        "<int:note_id>": str(world["page_note_id"]),
        "<name>": "C1",
        "<int:host_id>": str(world["host_id"]),
        "<uidb64>": "MQ",
        "<token>": "set-password",
        "<str:token>": world["shares"].get(caller, "hs_not-a-real-token-000000000000"),
    }
    for placeholder, value in values.items():
        route = route.replace(placeholder, value)
    return route


def body_for(key: str, world) -> tuple[object, str | None]:
    slug = world["a"].slug
    if key == "create_upload":
        file = io.BytesIO(TIMINGS.replace(b"1000", b"1234"))
        file.name = "t.json"
        return {"file": file, "campaign": slug, "host": "C1"}, None
    if key in ("post_samples", "post_timings"):
        item = (
            {"time": "2015-06-01T10:00:00Z", "counter": "\\\\C1\\Memory\\Available MBytes", "value": 5}
            if key == "post_samples"
            else {"name": "logon", "started_at": "2015-06-02T10:00:00Z", "duration_ms": 9, "repetition": 1}
        )
        field = "samples" if key == "post_samples" else "timings"
        return json.dumps({"campaign": slug, "host": "C1", field: [item]}), "application/json"
    if key == "create_campaign":
        body = {
            "slug": "matrix-campaign",
            "name": "M",
            "dimensions": ["av"],
            "project": world["a"].project.slug,
        }
        return json.dumps(body), "application/json"
    if key == "create_run":
        return json.dumps({"campaign": slug, "name": "matrix-run"}), "application/json"
    if key == "post_steps":
        return json.dumps([{"users": 10, "started_at": "2015-06-01T10:00:00Z"}]), "application/json"
    if key == "new-project":
        return {"slug": "matrix-project", "name": "M"}, None
    if key == "create_note":
        return json.dumps({"text": "matrix"}), "application/json"
    if key == "add-note":
        return {"text": "matrix"}, None
    if key == "update_series":
        return json.dumps({"baseline": ""}), "application/json"
    if key == "put_inventory":
        return json.dumps({"campaign": slug, "logical_processors": 2}), "application/json"
    if key in ("create-token", "create"):
        return {"name": "x", "view": "overview"}, None
    return {}, None


@pytest.mark.parametrize("caller", CALLERS)
def test_each_caller_gets_the_expected_status_everywhere(client, world, caller):
    if caller in world["users"]:
        client.force_login(world["users"][caller])
    headers = {"HTTP_AUTHORIZATION": f"Bearer {world['tokens'][caller]}"} if caller in world["tokens"] else {}
    wrong = []
    for key, route in routes():
        method, expected = MATRIX[key]
        url = url_for(route, world, caller)
        if key == "get_trace":
            url += f"?series={world['series'][0]}"
        if key == "get_correlation":
            url += f"?x={world['series'][0]}&y={world['series'][1]}"
        if key == "compare":
            url += f"?baseline={world['upload'].scenario_id}"
        if key == "sizing":
            url += "?users=1000&target=60&redundancy=1"
        if key == "get_inventory":
            url += f"?campaign={world['a'].slug}"
        if method == "get":
            response = client.get(url, **headers)
        elif method in ("put", "delete"):
            data, content_type = body_for(key, world)
            send = client.put if method == "put" else client.delete
            response = send(url, data, content_type=content_type or "application/json", **headers)
        else:
            data, content_type = body_for(key, world)
            extra = {"content_type": content_type} if content_type else {}
            response = client.post(url, data, **extra, **headers)
        if response.status_code != expected[caller]:
            wrong.append(f"{method.upper()} {url}: {response.status_code}, expected {expected[caller]}")
        if caller in world["users"] and key == "logout":
            client.force_login(world["users"][caller])
    assert not wrong, "\n".join(wrong)


def test_a_share_link_never_shows_another_campaign(client, world):
    page = client.get(f"/s/{world['shares']['share_b']}/").content.decode()
    assert world["a"].name not in page and world["a"].slug not in page

"""Who is calling: an agent token (``Authorization: Bearer``) or a dashboard session."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet
from django.http import HttpRequest
from ninja.security import APIKeyCookie, HttpBearer

from webapp.api import ratelimit
from webapp.api.errors import ApiError, not_found
from webapp.api.gzip_request import UPLOAD_PATHS
from webapp.core.models import AgentToken, Campaign, Project


@dataclass(frozen=True)
class Caller:
    """The projects a request may see, and the token if an agent sent it."""

    project_ids: frozenset[int]
    token: AgentToken | None = None
    user_id: int | None = None
    # Projects where the caller may add data: the token's project, or where
    # a signed-in user is owner or editor (viewers only read).
    writable_ids: frozenset[int] = frozenset()

    def projects(self) -> QuerySet[Project]:
        return Project.objects.filter(pk__in=self.project_ids)

    def campaigns(self, *, write: bool = False) -> QuerySet[Campaign]:
        return Campaign.objects.filter(project_id__in=self.writable_ids if write else self.project_ids)


class AgentBearer(HttpBearer):
    def authenticate(self, request: HttpRequest, token: str) -> Caller | None:
        found = AgentToken.authenticate(token)
        if found is None:
            return None
        ratelimit.check(found)
        ids = frozenset({found.project_id})
        return may_send_upload(request, Caller(project_ids=ids, token=found, writable_ids=ids))


class SessionAuth(APIKeyCookie):
    """Django's session cookie, for the dashboard's own fetches (CSRF-checked on writes)."""

    param_name = "sessionid"

    def __call__(self, request: HttpRequest) -> Caller | None:
        # A request that sends a bearer token is an agent's: judge it by the
        # token alone (401 when rejected), never by a session and its CSRF check.
        if request.META.get("HTTP_AUTHORIZATION", "").lower().startswith("bearer "):
            return None
        result: Caller | None = super().__call__(request)
        return result

    def authenticate(self, request: HttpRequest, key: str | None) -> Caller | None:
        user = request.user
        if not user.is_authenticated:
            return None
        if user.is_superuser:
            ids = frozenset(Project.objects.values_list("pk", flat=True))
            return may_send_upload(request, Caller(project_ids=ids, user_id=user.pk, writable_ids=ids))
        roles = dict(user.memberships.values_list("project_id", "role"))
        writable = frozenset(pid for pid, role in roles.items() if role in ("owner", "editor"))
        found = Caller(project_ids=frozenset(roles), user_id=user.pk, writable_ids=writable)
        return may_send_upload(request, found)


def may_send_upload(request: HttpRequest, found: Caller) -> Caller:
    """Before an upload body is read (or inflated): may the caller add data at all, and here?

    Runs inside authentication, so a refusal leaves the body unread. Every
    POST to an upload path needs a project the caller may write to; the
    campaign itself is a form field or a JSON member, inside the body, so a
    sender may also name it in the query string (``?campaign=slug``), and then
    write access to that campaign is checked here too (the view checks the
    body's campaign again, and that the two agree, before storing anything).
    """
    if request.method != "POST" or request.path_info not in UPLOAD_PATHS:
        return found
    if not found.writable_ids:
        raise ApiError(
            403, "read_only", "you may add data to no project (viewer role or no membership); body not read"
        )
    slug = request.GET.get("campaign")
    if slug is not None:
        campaign = found.campaigns().filter(slug=slug[:64].replace("\x00", "")).first()
        if campaign is None:
            raise not_found(f"campaign {slug[:64]!r}")
        if campaign.project_id not in found.writable_ids:
            raise ApiError(403, "read_only", "your role in this project is viewer: it can read, not add data")
    return found


agent_auth = AgentBearer()
session_auth = SessionAuth()
any_auth = [agent_auth, session_auth]


def caller(request: HttpRequest) -> Caller:
    found = getattr(request, "auth", None)
    assert isinstance(found, Caller)
    return found

"""Who is calling: an agent token (``Authorization: Bearer``) or a dashboard session."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet
from django.http import HttpRequest
from ninja.security import APIKeyCookie, HttpBearer

from webapp.api import ratelimit
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
        return Caller(project_ids=ids, token=found, writable_ids=ids)


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
            return Caller(project_ids=ids, user_id=user.pk, writable_ids=ids)
        roles = dict(user.memberships.values_list("project_id", "role"))
        writable = frozenset(pid for pid, role in roles.items() if role in ("owner", "editor"))
        return Caller(project_ids=frozenset(roles), user_id=user.pk, writable_ids=writable)


agent_auth = AgentBearer()
session_auth = SessionAuth()
any_auth = [agent_auth, session_auth]


def caller(request: HttpRequest) -> Caller:
    found = getattr(request, "auth", None)
    assert isinstance(found, Caller)
    return found

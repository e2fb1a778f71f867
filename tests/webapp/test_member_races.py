"""Owners acting at the same moment (issue 26 item 6): real concurrent requests, each on its own connection.

Every request runs in its own thread, so Django gives it its own database
connection; a barrier releases them together so their checks and writes
really overlap. Several rounds per test: one lucky interleaving proves nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client

from tests.factories import make_project, make_user
from webapp.core.models import Membership, Project

pytestmark = pytest.mark.django_db(transaction=True)

ROUNDS = 6


def at_once(*requests: Callable[[Client], int]) -> list[int]:
    """Run each request in its own thread and connection, released together; their status codes."""
    barrier = threading.Barrier(len(requests))
    codes: list[int] = [0] * len(requests)

    def run(index: int, request: Callable[[Client], int]) -> None:
        client = Client(raise_request_exception=False)
        try:
            barrier.wait(timeout=30)
            codes[index] = request(client)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, r)) for i, r in enumerate(requests)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return codes


def as_user(user, method: Callable[[Client], int]) -> Callable[[Client], int]:
    def request(client: Client) -> int:
        client.force_login(user)
        return method(client)

    return request


def posting(url: str, data: dict[str, str] | None = None) -> Callable[[Client], int]:
    return lambda client: client.post(url, data or {}).status_code


def two_owners() -> tuple[Project, Membership, Membership]:
    project = make_project()
    first = make_user(project, role="owner")
    second = make_user(project, role="owner")
    return (
        project,
        Membership.objects.get(project=project, user=first),
        Membership.objects.get(project=project, user=second),
    )


def owners(project: Project) -> int:
    return Membership.objects.filter(project=project, role=Membership.Role.OWNER).count()


@pytest.mark.parametrize("action", ["remove", "demote"])
def test_two_owners_removing_or_demoting_each_other_at_once_leave_one_owner(action):
    for _ in range(ROUNDS):
        project, a, b = two_owners()
        base = f"/accounts/projects/{project.slug}/members"

        def act_on(target: Membership, base: str = base) -> Callable[[Client], int]:
            if action == "remove":
                return lambda c: c.post(f"{base}/{target.pk}/remove").status_code
            return lambda c: c.post(f"{base}/{target.pk}/role", {"role": "viewer"}).status_code

        codes = at_once(as_user(a.user, act_on(b)), as_user(b.user, act_on(a)))
        # The later request may find its sender no longer an owner: 404, as for any non-owner.
        assert set(codes) <= {302, 404}
        assert owners(project) == 1


def test_one_owner_demoting_themselves_while_the_other_removes_them_keeps_an_owner():
    for _ in range(ROUNDS):
        project, a, b = two_owners()
        base = f"/accounts/projects/{project.slug}/members"
        demote_self = f"{base}/{a.pk}/role"
        remove_self = f"{base}/{b.pk}/remove"
        codes = at_once(
            as_user(a.user, posting(demote_self, {"role": "editor"})),
            as_user(b.user, posting(remove_self)),
        )
        assert set(codes) <= {302, 404}
        assert owners(project) == 1


def test_adding_the_same_new_name_twice_at_once_makes_one_account_and_one_membership():
    for round_ in range(ROUNDS):
        project = make_project()
        owner = make_user(project, role="owner")
        name = f"newcomer{round_}"

        def add(
            client: Client, url: str = f"/accounts/projects/{project.slug}/members/add", name: str = name
        ) -> int:
            return client.post(url, {"username": name, "role": "viewer"}).status_code

        codes = at_once(as_user(owner, add), as_user(owner, add), as_user(owner, add))
        assert codes == [302, 302, 302]
        assert get_user_model().objects.filter(username=name).count() == 1
        assert list(project.memberships.filter(user__username=name).values_list("role", flat=True)) == [
            "viewer"
        ]


def test_look_alike_names_added_at_once_make_one_account():
    for round_ in range(ROUNDS):
        project = make_project()
        owner = make_user(project, role="owner")

        url = f"/accounts/projects/{project.slug}/members/add"

        def add(name: str, url: str = url, owner=owner) -> Callable[[Client], int]:
            return as_user(owner, lambda c: c.post(url, {"username": name, "role": "editor"}).status_code)

        # Latin, capitals, and a Cyrillic a (U+0430) for the Latin one.
        codes = at_once(add(f"pat{round_}"), add(f"PAT{round_}"), add(f"p\u0430t{round_}"))
        assert codes == [302, 302, 302]
        made = get_user_model().objects.filter(memberships__project=project).exclude(pk=owner.pk)
        assert made.count() == 1
        assert made.get().memberships.get(project=project).role == "editor"

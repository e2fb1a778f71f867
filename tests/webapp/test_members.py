"""Owners manage their project's members on the dashboard: add (or create) a user, change roles, remove."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model

from tests.factories import make_campaign, make_user
from webapp.core.models import Membership

pytestmark = pytest.mark.django_db


@pytest.fixture
def project():
    return make_campaign().project


def owner_client(client, project):
    owner = make_user(project, role="owner", username="olivia")
    client.force_login(owner)
    return owner


def roles(project) -> dict[str, str]:
    return dict(project.memberships.values_list("user__username", "role"))


def alerts(page: str) -> list[str]:
    return re.findall(r'<p class="alert[^"]*" role="status">(.*?)</p>', page)


def test_an_owner_adds_an_existing_user_with_a_role(client, project):
    owner = owner_client(client, project)
    other = make_campaign().project  # victor and olivia already work together there
    make_user(other, role="viewer", username="victor")
    Membership.objects.create(project=other, user=owner, role="viewer")
    response = client.post(
        f"/accounts/projects/{project.slug}/members/add", {"username": "victor", "role": "editor"}
    )
    assert response.status_code == 302
    page = client.get(response["Location"]).content.decode()
    assert alerts(page) == ["victor added as editor."]
    assert roles(project) == {"olivia": "owner", "victor": "editor"}
    # Adding again says so and changes nothing.
    client.post(f"/accounts/projects/{project.slug}/members/add", {"username": "victor", "role": "viewer"})
    page = client.get(f"/accounts/projects/{project.slug}/members/").content.decode()
    assert alerts(page) == ["victor is already a member (editor); change the role below."]
    assert roles(project)["victor"] == "editor"


def test_a_new_colleague_gets_an_account_whose_password_is_shown_once_and_works(client, project):
    owner_client(client, project)
    response = client.post(
        f"/accounts/projects/{project.slug}/members/add", {"username": "newbie", "role": "viewer"}
    )
    first = client.get(response["Location"])
    assert first["Cache-Control"] == "private, no-store"
    password = re.search(r'<code id="new-password">([^<]+)</code>', first.content.decode()).group(1)
    assert len(password) >= 16
    assert "new-password" not in client.get(response["Location"]).content.decode()  # once
    assert roles(project)["newbie"] == "viewer"
    client.logout()
    signed_in = client.post("/accounts/login/", {"username": "newbie", "password": password})
    assert signed_in.status_code == 302
    assert client.get(f"/campaigns/{project.campaigns.get().slug}/").status_code == 200


@pytest.mark.parametrize(
    ("username", "role", "message"),
    [
        ("bad name!", "viewer", "A user name is 1-150 letters, digits and @ . + - _"),
        ("", "viewer", "A user name is 1-150 letters, digits and @ . + - _"),
        ("fine", "admin", "Choose a role: owner, editor, viewer."),
    ],
)
def test_a_bad_user_name_or_role_is_refused_with_a_reason(client, project, username, role, message):
    owner_client(client, project)
    client.post(f"/accounts/projects/{project.slug}/members/add", {"username": username, "role": role})
    page = client.get(f"/accounts/projects/{project.slug}/members/").content.decode()
    assert [a for a in alerts(page) if a.startswith(message)]
    assert roles(project) == {"olivia": "owner"}
    assert not get_user_model().objects.filter(username__in=["bad name!", "fine"]).exists()


def test_roles_change_and_members_leave_but_the_last_owner_stays(client, project):
    owner = owner_client(client, project)
    viewer = make_user(project, role="viewer", username="val")
    mine = Membership.objects.get(project=project, user=owner)
    theirs = Membership.objects.get(project=project, user=viewer)
    base = f"/accounts/projects/{project.slug}/members"

    client.post(f"{base}/{mine.pk}/role", {"role": "editor"})
    client.post(f"{base}/{mine.pk}/remove")
    page = client.get(f"{base}/").content.decode()
    assert alerts(page) == [
        "olivia is the project&#x27;s only owner: make someone else owner first.",
        "olivia is the project&#x27;s only owner and stays: make someone else owner first.",
    ]
    assert roles(project) == {"olivia": "owner", "val": "viewer"}

    client.post(f"{base}/{theirs.pk}/role", {"role": "owner"})
    client.post(f"{base}/{mine.pk}/role", {"role": "viewer"})  # now allowed: val owns it too
    assert roles(project) == {"olivia": "viewer", "val": "owner"}
    assert client.get(f"{base}/").status_code == 404  # a viewer no longer manages members

    client.force_login(viewer)
    client.post(f"{base}/{mine.pk}/remove")
    assert roles(project) == {"val": "owner"}
    assert get_user_model().objects.filter(username="olivia").exists()  # the account remains


def test_members_of_another_project_are_out_of_reach(client, project):
    owner_client(client, project)
    other = make_campaign().project
    stranger = make_user(other, role="viewer", username="sam")
    membership = Membership.objects.get(project=other, user=stranger)
    assert client.post(f"/accounts/projects/{project.slug}/members/{membership.pk}/remove").status_code == 404
    assert client.get(f"/accounts/projects/{other.slug}/members/").status_code == 404
    assert roles(other) == {"sam": "viewer"}


def test_the_projects_page_links_owners_to_members(client, project):
    owner_client(client, project)
    assert f"/accounts/projects/{project.slug}/members/" in client.get("/accounts/projects/").content.decode()
    client.force_login(make_user(project, role="editor"))
    assert (
        f"/accounts/projects/{project.slug}/members/"
        not in client.get("/accounts/projects/").content.decode()
    )

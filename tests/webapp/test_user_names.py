"""User names that look alike are one account (issue 26 items 11 and 14), on the members page and in the database."""

from __future__ import annotations

import re
import unicodedata

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction

from tests.factories import make_project, make_user
from webapp.accounts import names
from webapp.core.models import Membership

pytestmark = pytest.mark.django_db

LOOK_ALIKES_OF_DEMO = [
    "Demo",
    "DEMO",
    "\uff44\uff45\uff4d\uff4f",  # fullwidth: NFKC folds it onto "demo"
    "\u0501emo",  # Cyrillic komi de
    "d\u0435mo",  # Cyrillic ie
    "dem\u03bf",  # Greek omicron
    "\U0001d41d\U0001d41e\U0001d426\U0001d428",  # mathematical bold
]


def alerts(page: str) -> list[str]:
    return re.findall(r'<p class="alert[^"]*" role="status">(.*?)</p>', page)


def add(client, project, username: str, role: str = "viewer") -> list[str]:
    client.post(f"/accounts/projects/{project.slug}/members/add", {"username": username, "role": role})
    return alerts(client.get(f"/accounts/projects/{project.slug}/members/").content.decode())


@pytest.fixture
def owner_and_colleague(client):
    """An owner of a fresh project who already works with ``demo`` in another project."""
    project, elsewhere = make_project(), make_project()
    owner = make_user(project, role="owner", username="olivia")
    Membership.objects.create(project=elsewhere, user=owner, role="viewer")
    demo = make_user(elsewhere, role="editor", username="demo")
    client.force_login(owner)
    return project, demo


@pytest.mark.parametrize("typed", LOOK_ALIKES_OF_DEMO)
def test_a_look_alike_of_a_colleagues_name_adds_that_colleague_not_a_new_account(
    client, owner_and_colleague, typed
):
    project, _ = owner_and_colleague
    users_before = get_user_model().objects.count()
    assert add(client, project, typed, role="editor") == ["demo added as editor."]
    assert get_user_model().objects.count() == users_before
    assert dict(project.memberships.values_list("user__username", "role")) == {
        "olivia": "owner",
        "demo": "editor",
    }
    # Again, in another disguise: already a member, under its real name.
    assert add(client, project, "DEMO") == ["demo is already a member (editor); change the role below."]


@pytest.mark.parametrize("typed", ["demo", *LOOK_ALIKES_OF_DEMO])
def test_a_strangers_account_is_not_added_and_the_answer_is_the_one_for_any_unavailable_name(client, typed):
    project = make_project()
    client.force_login(make_user(project, role="owner", username="olivia"))
    make_user(make_project(), role="owner", username="demo")  # shares no project with olivia
    users_before = get_user_model().objects.count()
    [answer] = add(client, project, typed)
    # The name as typed (NFKC-folded), never the stranger's own spelling.
    shown = unicodedata.normalize("NFKC", typed)
    assert answer.startswith(f"The user name {shown} is not available for a new account: choose another.")
    assert get_user_model().objects.count() == users_before
    assert list(project.memberships.values_list("user__username", flat=True)) == ["olivia"]


def test_staff_add_any_existing_account(client):
    project = make_project()
    staff = make_user(project, role="owner", username="sysop")
    staff.is_staff = True
    staff.save(update_fields=["is_staff"])
    client.force_login(staff)
    make_user(make_project(), role="owner", username="demo")
    assert add(client, project, "Demo") == ["demo added as viewer."]


@pytest.mark.parametrize("look_alike", LOOK_ALIKES_OF_DEMO)
def test_the_database_refuses_a_look_alike_account_whichever_path_makes_it(look_alike):
    get_user_model().objects.create_user("demo")
    with pytest.raises(IntegrityError), transaction.atomic():
        get_user_model().objects.create(username=look_alike)  # no normalising: the admin's path
    assert list(get_user_model().objects.values_list("username", flat=True)) == ["demo"]


def test_the_database_key_function_maps_every_listed_look_alike():
    # Fails when LOOKALIKES changes without a migration replacing the function.
    with connection.cursor() as cursor:
        cursor.execute("SELECT user_name_key(%s)", ["".join(names.LOOKALIKES)])
        [key] = cursor.fetchone()
    assert key == "".join(names.LOOKALIKES.values()).lower()
    assert len(key) == len(names.LOOKALIKES) == 57


def test_different_names_stay_different():
    for name in ["ian", "lan", "1an", "iam", "björn", "bjorn", "åsa", "asa"]:
        get_user_model().objects.create_user(name)
    assert get_user_model().objects.count() == 8

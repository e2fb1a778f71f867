"""Projects and campaigns made and changed in the dashboard, and ``manage.py create_project``."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from tests.factories import make_campaign, make_project, make_user
from webapp.core.models import Campaign, Membership, Project

pytestmark = pytest.mark.django_db

FORM = {
    "slug": "av-impact",
    "name": "AV impact on logon",
    "description": "on-access scanning on and off",
    "dimension": ["av", "smb_dialect"],  # ticked boxes arrive in any order
    "other_dimensions": "technique, dataset",
}


def test_an_editor_creates_a_campaign_with_dimensions_as_a_list(client):
    project = make_project()
    client.force_login(make_user(project, role="editor"))
    page = client.get("/campaigns/new").content.decode()
    assert f'value="{project.slug}"' in page and 'name="dimension" value="server_os"' in page
    assert "{" not in page.split("<form")[1].split("</form>")[0].replace("{%", "")  # no JSON box
    response = client.post("/campaigns/new", {**FORM, "project": project.slug})
    assert response.status_code == 302 and response["Location"] == "/campaigns/av-impact/uploads/"
    campaign = Campaign.objects.get(slug="av-impact")
    assert campaign.project == project and campaign.name == "AV impact on logon"
    assert campaign.dimensions == ["smb_dialect", "av", "technique", "dataset"]
    assert campaign.description == "on-access scanning on and off"


def test_a_taken_slug_or_bad_dimension_re_shows_the_form_with_the_reason(client):
    project = make_project()
    make_campaign(slug="av-impact")
    client.force_login(make_user(project, role="owner"))
    taken = client.post("/campaigns/new", {**FORM, "project": project.slug})
    assert taken.status_code == 400
    assert "slug &#x27;av-impact&#x27; is not available; choose another slug" in taken.content.decode()
    bad = client.post(
        "/campaigns/new", {**FORM, "slug": "fresh", "project": project.slug, "other_dimensions": "a b"}
    )
    assert bad.status_code == 400 and "dimension &#x27;a b&#x27;" in bad.content.decode()
    assert 'value="fresh"' in bad.content.decode()  # what was typed stays
    assert not Campaign.objects.filter(slug="fresh").exists()


def test_viewers_cannot_create_and_are_told_why(client):
    project = make_project()
    client.force_login(make_user(project, role="viewer"))
    assert "not an owner or editor of any project" in client.get("/campaigns/new").content.decode()
    assert client.post("/campaigns/new", {**FORM, "project": project.slug}).status_code == 404
    assert not Campaign.objects.filter(slug="av-impact").exists()


def test_an_editor_changes_name_description_and_dimensions_but_not_the_slug(client):
    campaign = make_campaign()
    editor = make_user(campaign.project, role="editor")
    client.force_login(editor)
    page = client.get(f"/campaigns/{campaign.slug}/settings/").content.decode()
    assert 'value="disk_type" checked' in page
    response = client.post(
        f"/campaigns/{campaign.slug}/settings/",
        {"name": "Renamed", "description": "new", "dimension": ["disk_type"], "other_dimensions": "study"},
    )
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert (campaign.name, campaign.description, campaign.dimensions) == (
        "Renamed",
        "new",
        ["disk_type", "study"],
    )
    client.force_login(make_user(campaign.project, role="viewer"))
    assert client.get(f"/campaigns/{campaign.slug}/settings/").status_code == 404


def test_staff_create_a_project_with_its_first_owner(client):
    staff = get_user_model().objects.create_user("ops", password="pw-for-tests-1", is_staff=True)
    owner = make_user(username="alice")
    client.force_login(staff)
    assert 'action="/accounts/projects/new"' in client.get("/accounts/projects/").content.decode()
    response = client.post("/accounts/projects/new", {"slug": "acme", "name": "ACME", "owner": "alice"})
    assert response.status_code == 302
    project = Project.objects.get(slug="acme")
    assert Membership.objects.get(project=project).user == owner
    assert Membership.objects.get(project=project).role == "owner"
    again = client.post("/accounts/projects/new", {"slug": "acme", "name": "ACME 2"}, follow=True)
    assert "a project with slug &#x27;acme&#x27; already exists" in again.content.decode()
    client.force_login(owner)
    assert client.post("/accounts/projects/new", {"slug": "mine", "name": "Mine"}).status_code == 403
    assert 'action="/accounts/projects/new"' not in client.get("/accounts/projects/").content.decode()


def test_the_create_project_command_makes_the_owner_and_prints_a_password_once():
    out = io.StringIO()
    call_command("create_project", "lab", "--name", "Test lab", "--owner", "bob", stdout=out)
    text = out.getvalue()
    assert "project 'lab' created with owner 'bob'" in text
    password = text.split("(shown once): ")[1].strip()
    bob = get_user_model().objects.get(username="bob")
    assert bob.check_password(password) and len(password) >= 16
    assert Membership.objects.get(project__slug="lab", user=bob).role == "owner"
    call_command("create_project", "lab-2", "--name", "Lab 2", "--owner", "bob", stdout=io.StringIO())
    assert set(bob.memberships.values_list("project__slug", flat=True)) == {"lab", "lab-2"}
    with pytest.raises(CommandError, match="already exists"):
        call_command(
            "create_project", "lab", "--name", "Again", "--owner", "carol", "--password", "x-pw-123456"
        )
    assert not get_user_model().objects.filter(username="carol").exists()  # rolled back with the project

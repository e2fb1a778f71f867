"""POST /api/v1/campaigns: owners, editors and agent tokens create campaigns; viewers and strangers cannot."""

from __future__ import annotations

import json

import pytest

from tests.factories import make_campaign, make_project, make_token, make_user
from webapp.core.models import Campaign

pytestmark = pytest.mark.django_db

BODY = {
    "slug": "smb-study-2024",
    "name": "SMB study 2024",
    "description": "SMB 2.1 vs 3.02 on HDD and SSD",
    "dimensions": ["smb_dialect", "disk_type", "av"],
}


def post(client, body, token=None):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    return client.post("/api/v1/campaigns", json.dumps(body), content_type="application/json", **headers)


def test_an_agent_token_creates_a_campaign_in_its_project_and_gets_201(client):
    project = make_project()
    _, token = make_token(project)
    response = post(client, BODY, token)
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["slug"] == "smb-study-2024" and body["name"] == "SMB study 2024"
    assert body["dimensions"] == ["smb_dialect", "disk_type", "av"] and body["project"] == project.slug
    assert body["url"] == "http://testserver/campaigns/smb-study-2024/"
    campaign = Campaign.objects.get(slug="smb-study-2024")
    assert campaign.project == project and campaign.description == "SMB 2.1 vs 3.02 on HDD and SSD"
    assert campaign.dimensions == ["smb_dialect", "disk_type", "av"]
    # The agent can upload to it at once.
    whoami = client.get("/api/v1/whoami", HTTP_AUTHORIZATION=f"Bearer {token}").json()
    assert whoami["projects"][0]["campaigns"] == ["smb-study-2024"]


def test_an_existing_slug_answers_409_with_a_json_error(client):
    existing = make_campaign(slug="taken")
    _, token = make_token(make_project())
    response = post(client, {**BODY, "slug": "taken"}, token)
    assert response.status_code == 409
    error = response.json()["error"]
    assert (error["code"], error["message"]) == (
        "slug_taken",
        "slug 'taken' is not available; choose another slug",
    )
    assert Campaign.objects.filter(slug="taken").count() == 1
    assert Campaign.objects.get(slug="taken").project == existing.project


def test_a_slug_taken_in_another_tenants_project_answers_as_one_taken_in_ones_own(client):
    # Slugs are global (SPEC's URLs are /campaigns/{slug}); the answer must not say whose it is.
    mine = make_project()
    _, token = make_token(mine)
    make_campaign(mine, slug="ours")
    make_campaign(make_project(), slug="theirs")
    own = post(client, {**BODY, "slug": "ours"}, token)
    other = post(client, {**BODY, "slug": "theirs"}, token)
    assert own.status_code == other.status_code == 409
    assert own.json()["error"] == {
        "code": "slug_taken",
        "message": "slug 'ours' is not available; choose another slug",
        "details": None,
    }
    assert other.json()["error"] == {
        "code": "slug_taken",
        "message": "slug 'theirs' is not available; choose another slug",
        "details": None,
    }


@pytest.mark.parametrize(
    ("name", "found"),
    [
        ("SMB \u202estudy", "U+202E"),  # right-to-left override
        ("SMB \u2066study\u2069", "U+2066"),  # left-to-right isolate
        ("SMB \x1b[31mstudy", "U+001B"),  # ESC: a terminal colour sequence
        ("SMB\x85study", "U+0085"),  # C1 next line
        ("SMB\u2028study", "U+2028"),  # line separator
        ("SMB\tstudy", "U+0009"),
    ],
)
def test_control_and_text_direction_characters_in_a_campaign_name_are_refused_naming_the_field(
    client, name, found
):
    _, token = make_token(make_project())
    response = post(client, {**BODY, "name": name}, token)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_name"
    assert error["message"] == (
        f"campaign name must not contain control or text-direction characters (found {found} "
        f"at character {name.index(chr(int(found[2:], 16))) + 1}); use plain text"
    )
    assert not Campaign.objects.exists()


def test_right_to_left_text_itself_is_a_fine_name(client):
    _, token = make_token(make_project())
    response = post(client, {**BODY, "name": "\u05de\u05d7\u05e7\u05e8 SMB"}, token)
    assert response.status_code == 201
    assert Campaign.objects.get().name == "\u05de\u05d7\u05e7\u05e8 SMB"


def test_a_viewer_gets_403_and_an_editor_creates_with_the_session(client):
    project = make_project()
    viewer, editor = make_user(project, role="viewer"), make_user(project, role="editor")
    client.force_login(viewer)
    refused = post(client, {**BODY, "project": project.slug})
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "read_only"
    assert post(client, BODY).status_code == 403  # no project named: still none writable
    client.force_login(editor)
    created = post(client, BODY)  # the only project the editor may write to
    assert created.status_code == 201 and created.json()["project"] == project.slug
    assert not Campaign.objects.exclude(project=project).filter(slug=BODY["slug"]).exists()


def test_a_user_of_several_projects_must_name_one(client):
    first, second = make_project(), make_project()
    user = make_user(first, role="owner")
    second.memberships.create(user=user, role="editor")
    client.force_login(user)
    response = post(client, BODY)
    assert response.status_code == 400 and response.json()["error"]["code"] == "project_required"
    assert first.slug in response.json()["error"]["message"]
    named = post(client, {**BODY, "project": second.slug})
    assert named.status_code == 201 and Campaign.objects.get(slug=BODY["slug"]).project == second


def test_another_projects_token_cannot_create_there(client):
    target, other = make_project(), make_project()
    _, token = make_token(other)
    response = post(client, {**BODY, "project": target.slug}, token)
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    assert post(client, BODY).status_code == 401
    assert not Campaign.objects.filter(slug=BODY["slug"]).exists()


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"slug": "Not A Slug"}, "invalid_slug"),
        ({"slug": "-edge"}, "invalid_slug"),
        ({"name": "   "}, "invalid_name"),
        ({"dimensions": ["av", "av"]}, "invalid_dimensions"),
        ({"dimensions": ["smb dialect"]}, "invalid_dimensions"),
        ({"dimensions": [f"d{i}" for i in range(33)]}, "invalid_dimensions"),
        ({"dimensions": '{"av": "on"}'}, "invalid_request"),
        ({"dimensions": [1, 2]}, "invalid_request"),
    ],
)
def test_bad_fields_get_a_400_naming_the_problem(client, change, code):
    _, token = make_token(make_project())
    response = post(client, {**BODY, **change}, token)
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == code
    assert not Campaign.objects.exists()


def test_the_openapi_document_describes_campaign_creation(client):
    operation = client.get("/api/v1/openapi.json").json()["paths"]["/api/v1/campaigns"]["post"]
    assert {"201", "403", "409"} <= set(operation["responses"])


def test_a_hundred_thousand_dimensions_are_refused_by_count_before_any_key_is_checked(client):
    from webapp.core import creation

    looked_at = 0

    def keys():
        nonlocal looked_at
        for i in range(100_000):
            looked_at += 1
            yield f"d{i}"

    with pytest.raises(creation.Refused) as refused:
        creation.check_dimensions(keys())
    assert refused.value.code == "invalid_dimensions" and "at most 32" in refused.value.message
    assert looked_at == creation.MAX_DIMENSIONS + 1  # counted, not scanned
    _, token = make_token(make_project())
    response = post(client, {**BODY, "dimensions": [f"d{i}" for i in range(100_000)]}, token)
    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid_dimensions"
    assert not Campaign.objects.filter(slug=BODY["slug"]).exists()

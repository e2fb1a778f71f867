"""The admin shows the time-series storage, never a token's secret, and uploads read-only."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.urls import reverse

from tests.factories import make_campaign, make_project, make_token
from webapp.core.models import AgentToken, Upload
from webapp.timeseries import backend

pytestmark = pytest.mark.django_db


def test_it_shows_the_time_series_storage_on_the_admin_index(admin_client):
    response = admin_client.get("/admin/")
    assert response.status_code == 200
    html = response.content.decode()
    # The test server has no TimescaleDB extension; where it has, the mode says so.
    assert f"Time-series storage: {backend.mode()}" in html
    assert "Headroom administration" in html


def test_it_lists_agent_tokens_without_their_digest_or_plain_text(admin_client):
    token, plain = make_token(make_project(), name="fs01")
    html = admin_client.get("/admin/core/agenttoken/").content.decode()
    assert "fs01" in html and token.hint in html
    assert token.digest not in html
    assert plain not in html


def test_it_offers_no_way_to_create_or_set_a_token(admin_client):
    token, plain = make_token(make_project(), name="fs01")
    assert admin_client.get("/admin/core/agenttoken/add/").status_code == 403
    html = admin_client.get(f"/admin/core/agenttoken/{token.pk}/change/").content.decode()
    assert 'name="digest"' not in html and 'name="hint"' not in html
    assert plain not in html


def test_it_revokes_selected_tokens(admin_client):
    token, plain = make_token(make_project())
    response = admin_client.post(
        "/admin/core/agenttoken/", {"action": "revoke", "_selected_action": [token.pk]}, follow=True
    )
    assert "Revoked 1 token(s)." in response.content.decode()
    assert AgentToken.objects.get(pk=token.pk).revoked_at is not None
    assert AgentToken.authenticate(plain) is None


def test_it_lists_failed_uploads_with_their_error_message_and_no_edit_form(admin_client):
    upload = Upload.objects.create(
        campaign=make_campaign(),
        filename="perf.csv",
        sha256="a" * 64,
        size=10,
        storage_key="raw/aa/" + "a" * 64,
        parser="perfmon_csv",
        status=Upload.Status.FAILED,
        error={
            "message": "line 3: 5 columns, header has 7",
            "line": 3,
            "column": None,
            "parser": "perfmon_csv",
        },
    )
    html = admin_client.get("/admin/core/upload/?status=failed").content.decode()
    assert "perf.csv" in html and "line 3: 5 columns, header has 7" in html
    assert admin_client.get("/admin/core/upload/add/").status_code == 403
    detail = admin_client.get(f"/admin/core/upload/{upload.pk}/change/").content.decode()
    assert 'name="status"' not in detail and 'name="_save"' not in detail


def test_it_renders_the_list_of_every_registered_model(admin_client):
    make_token(make_campaign().project)
    for model in admin.site._registry:
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        assert admin_client.get(url).status_code == 200, url


def test_a_run_or_host_agents_name_cannot_be_renamed_or_moved_but_new_ones_can_be_named(admin_client):
    from webapp.core import rawstore
    from webapp.core.models import Host, Run
    from webapp.core.upload_meta import UploadMeta
    from webapp.core.uploads import accept

    campaign = make_campaign()
    upload, _ = accept(campaign, rawstore.save_bytes(b"admin"), UploadMeta(run="r1", host="FS01"))
    run = Run.objects.get(uploads=upload)
    host = Host.objects.get(uploads=upload)
    run_form = admin_client.get(f"/admin/core/run/{run.pk}/change/").content.decode()
    assert (
        'name="name"' not in run_form
        and 'name="scenario"' not in run_form
        and 'name="campaign"' not in run_form
    )
    assert 'name="tool"' in run_form  # the rest stays editable
    host_form = admin_client.get(f"/admin/core/host/{host.pk}/change/").content.decode()
    assert 'name="name"' not in host_form and 'name="project"' not in host_form and 'name="os"' in host_form
    campaign_form = admin_client.get(f"/admin/core/campaign/{campaign.pk}/change/").content.decode()
    assert 'name="project"' not in campaign_form and 'name="name"' in campaign_form
    for path in ("run", "host", "campaign"):
        add_form = admin_client.get(f"/admin/core/{path}/add/").content.decode()
        assert 'name="name"' in add_form

"""The real agent against the real server: create a campaign, then fix a failed robocopy upload.

``headroom-agent`` runs as a subprocess, exactly as a tester runs it; the
real worker parses the real robocopy log written on a Windows machine.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.agents.conftest import AgentRunner
from tests.factories import make_project, make_token
from tests.paths import FIXTURES
from webapp.core.models import Campaign, Upload
from webapp.timeseries.models import Measurement

pytestmark = [
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("settled_worker"),
]

# "Started : Saturday, May 30, 2026 12:27:10 PM", local time without an offset.
LOG = FIXTURES / "robocopy" / "andrew_robocopy_utf16_NFL.log"


def create(run_agent: AgentRunner, server: str, token: str, slug: str) -> Any:
    return run_agent(
        "campaign", "create", "--server", server, "--token", token, "--slug", slug,
        "--name", "Copy study", "--description", "robocopy /MT vs single thread",
        "--dimension", "technique", "--dimension", "dataset",
    )  # fmt: skip


def test_the_agent_creates_a_campaign_and_a_second_time_is_refused(
    live_server: Any, run_agent: AgentRunner
) -> None:
    project = make_project()
    _, token = make_token(project)
    first = create(run_agent, live_server.url, token, "copy-study")
    assert first.returncode == 0, first.output
    assert "campaign copy-study created" in first.stdout
    campaign = Campaign.objects.get(slug="copy-study")
    assert campaign.project == project and campaign.dimensions == ["technique", "dataset"]
    assert campaign.description == "robocopy /MT vs single thread"
    again = create(run_agent, live_server.url, token, "copy-study")
    assert again.returncode == 1 and "HTTP 409" in again.stderr and "is not available" in again.stderr


def test_a_log_from_this_machine_needs_no_flag_and_a_failed_one_is_fixed_by_timezone(
    live_server: Any, run_agent: AgentRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = make_project()
    _, token = make_token(project)
    assert create(run_agent, live_server.url, token, "copies").returncode == 0
    connect = ["--server", live_server.url, "--token", token, "--campaign", "copies"]

    # A machine whose zone cannot be named sends none: the log fails and says what to do.
    monkeypatch.setenv("TZ", "Not/AZone")
    failed = run_agent("upload", str(LOG), *connect, "--wait", "--wait-timeout", "60")
    assert failed.returncode == 1, failed.output
    assert "upload it again with `timezone`" in failed.stdout
    upload = Upload.objects.get(campaign__slug="copies")
    assert upload.status == Upload.Status.FAILED

    fixed = run_agent("upload", str(LOG), *connect, "--timezone", "Europe/Berlin", "--wait")
    assert fixed.returncode == 0, fixed.output
    assert "duplicate" not in fixed.stdout and f"upload {upload.pk} stored" in fixed.stdout
    first = Measurement.objects.filter(upload_id=upload.pk).order_by("time").first()
    assert first is not None and first.time.isoformat() == "2026-05-30T10:27:10+00:00"

    # From a machine in Kolkata the log needs no flag at all (another campaign: a new upload).
    assert create(run_agent, live_server.url, token, "copies-kolkata").returncode == 0
    monkeypatch.setenv("TZ", "Asia/Kolkata")
    local = run_agent("upload", str(LOG), *connect[:-1], "copies-kolkata", "--wait")
    assert local.returncode == 0, local.output
    other = Upload.objects.get(campaign__slug="copies-kolkata")
    assert other.timezone == "Asia/Kolkata" and other.status == Upload.Status.STORED
    first = Measurement.objects.filter(upload_id=other.pk).order_by("time").first()
    assert first is not None and first.time.isoformat() == "2026-05-30T06:57:10+00:00"


def copies_campaign(live_server: Any, run_agent: AgentRunner) -> list[str]:
    """A new project's "copies" campaign made by the agent; the flags that upload to it in UTC."""
    _, token = make_token(make_project())
    assert create(run_agent, live_server.url, token, "copies").returncode == 0
    return ["--server", live_server.url, "--token", token, "--campaign", "copies", "--timezone", "UTC"]


def test_a_misspelt_dimension_is_refused_with_the_closest_name_and_nothing_is_kept(
    live_server: Any, run_agent: AgentRunner
) -> None:
    connect = copies_campaign(live_server, run_agent)

    typo = run_agent("upload", "--scenario", "techniqe=robocopy", str(LOG), *connect)

    assert typo.returncode == 1, typo.output
    assert "'techniqe' is not one of campaign 'copies''s dimensions (technique, dataset)" in typo.stderr
    assert "Did you mean 'technique'?" in typo.stderr
    assert not Upload.objects.filter(campaign__slug="copies").exists()
    right = run_agent("upload", "--scenario", "technique=robocopy", str(LOG), *connect)
    assert right.returncode == 0, right.output
    assert Upload.objects.get(campaign__slug="copies").scenario.dims == {"technique": "robocopy"}


def test_sending_a_stored_file_again_with_another_run_refiles_it(
    live_server: Any, run_agent: AgentRunner
) -> None:
    connect = copies_campaign(live_server, run_agent)

    first = run_agent("upload", str(LOG), *connect, "--run", "wrong-run", "--wait")
    assert first.returncode == 0, first.output
    upload = Upload.objects.get(campaign__slug="copies")
    again = run_agent("upload", str(LOG), *connect, "--run", "right-run", "--wait")

    assert again.returncode == 0, again.output
    line = next(line for line in again.stdout.splitlines() if line.startswith(f"upload {upload.pk} "))
    assert line.endswith(f"{LOG.name} (re-filed: sent before with other options, parsed again with these)")
    upload.refresh_from_db()
    assert upload.run is not None and upload.run.name == "right-run" and upload.status == Upload.Status.STORED
    assert set(Measurement.objects.filter(upload_id=upload.pk).values_list("run_id", flat=True)) == {
        upload.run.pk
    }

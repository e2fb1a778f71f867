"""The "Logon load 2015" demo, loaded with ``load_demo --campaign demo-logon`` and ingested through the real
pipeline: ``GET /api/v1/campaigns/demo-logon/logon-phases`` answers the phase means docs/logon_phases.md states."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from tests.factories import make_user
from webapp.core.models import Campaign, Scenario, Upload
from workers.tasks import ingest_upload

pytestmark = pytest.mark.django_db

# By hand, as the module docstring of webapp/demo/logon_phases.py and docs/logon_phases.md state them.
NONE = {
    "profile": 1800,
    "group_policy": 1350,
    "cse:Registry": 120,
    "scripts": 850,
    "shell": 1400,
    "total": 4610,
}
FOLDER = {**NONE, "profile": 2600, "group_policy": 2560, "cse:Folder Redirection": 1200, "total": 6620}


@pytest.fixture
def demo(client):
    call_command("load_demo", "--campaign", "demo-logon")
    for upload_id in Upload.objects.values_list("pk", flat=True):
        ingest_upload.apply(args=(upload_id,))
    assert set(Upload.objects.values_list("status", flat=True)) == {"stored"}
    campaign = Campaign.objects.get(slug="demo-logon")
    client.force_login(make_user(campaign.project))
    return campaign


def _by_phase(scenario: dict) -> dict[str, dict]:
    return {p["phase"]: p for p in scenario["phases"]}


def test_each_phase_mean_per_redirection_is_the_stated_one(client, demo):
    body = client.get("/api/v1/campaigns/demo-logon/logon-phases").json()
    assert body["has_phases"] is True
    assert [p["phase"] for p in body["phases"]] == [
        "profile",
        "group_policy",
        "cse:Folder Redirection",
        "cse:Registry",
        "scripts",
        "shell",
        "total",
    ]
    found = {s["dims"]["redirection"]: s for s in body["scenarios"]}
    assert sorted(found) == ["folder", "none"]  # only the phase exports hold phases
    for redirection, stated in (("none", NONE), ("folder", FOLDER)):
        phases = _by_phase(found[redirection])
        assert found[redirection]["dims"]["study"] == "logon-phases"
        for key, mean in stated.items():
            assert phases[key]["n"] == 20 and phases[key]["missing"] is False, (redirection, key)
            assert phases[key]["mean_ms"] == pytest.approx(mean, abs=1e-6), (redirection, key)
        assert phases["shell"]["inferred"] is True
    # No Folder Redirection without redirected folders: missing, never 0.
    absent = _by_phase(found["none"])["cse:Folder Redirection"]
    assert (absent["mean_ms"], absent["n"], absent["missing"]) == (None, 0, True)
    # User policy time the extensions leave: 1,350 - 120 and 2,560 - 120 - 1,200.
    assert found["none"]["group_policy_other_ms"] == pytest.approx(1230, abs=1e-6)
    assert found["folder"]["group_policy_other_ms"] == pytest.approx(1240, abs=1e-6)


def test_profile_load_grows_with_folder_redirection_against_none_as_baseline(client, demo):
    none = Scenario.objects.get(campaign=demo, redirection="none")
    body = client.get("/api/v1/campaigns/demo-logon/logon-phases", {"baseline": none.pk}).json()
    assert body["baseline"]["scenario"] == none.pk
    compared = {c["phase"]: c for c in body["comparisons"]}
    profile = compared["profile"]
    assert profile["n"] == [20, 20]
    assert profile["factor"] == pytest.approx(2600 / 1800, abs=1e-9)
    low, high = profile["interval"]
    assert 1 < low < 2600 / 1800 < high and profile["significant"] is True
    assert compared["total"]["factor"] == pytest.approx(6620 / 4610, abs=1e-9)
    for same in ("cse:Registry", "scripts", "shell"):
        assert compared[same]["factor"] == pytest.approx(1.0, abs=1e-9), same
    folder_cse = compared["cse:Folder Redirection"]
    assert (folder_cse["factor"], folder_cse["verdict"]) == (None, "missing")
    assert folder_cse["missing_in"] == [none.label]


def test_the_phase_exports_are_filed_under_their_clients_and_runs(demo):
    exports = Upload.objects.filter(campaign=demo, kind="evtx_xml")
    assert exports.count() == 8
    assert sorted({u.run.name for u in exports}) == [
        "logon-phases-redirection-folder",
        "logon-phases-redirection-none",
    ]
    assert sorted({h.name for u in exports for h in u.run.hosts.all()}) == ["LG01", "LG02", "LG03", "LG04"]


def test_loading_over_an_older_demo_adds_the_redirection_dimension_it_now_declares():
    call_command("load_demo", "--campaign", "demo-logon")
    campaign = Campaign.objects.get(slug="demo-logon")
    campaign.dimensions = ["server_os", "smb_dialect", "disk_type", "av", "study"]  # as loaded before
    campaign.save()
    call_command("load_demo", "--campaign", "demo-logon")
    campaign.refresh_from_db()
    assert campaign.dimensions == ["server_os", "smb_dialect", "disk_type", "av", "study", "redirection"]
    assert Upload.objects.filter(campaign=campaign).count() == 18  # the second load added no duplicate

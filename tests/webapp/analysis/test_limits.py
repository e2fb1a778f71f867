"""Which resource saturates first, from stored samples, against hand-computed crossings."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.factories import make_campaign, make_user
from tests.webapp.analysis.studies import add_run
from webapp.core.models import DEFAULT_LIMITS, ResourceLimit
from webapp.timeseries.models import Measurement

pytestmark = pytest.mark.django_db

NIC = "Network Interface(Ethernet0)"
LEVELS = {
    "\\Processor(_Total)\\% Processor Time": (20, 40, 60, 70, 90),  # 80 % at 400 + 10/20 x 100 = 450
    "\\PhysicalDisk(0 C:)\\Avg. Disk sec/Transfer": (0.005, 0.008, 0.012, 0.018, 0.030),  # 20 ms at 416.7
    "\\PhysicalDisk(1 D:)\\Avg. Disk sec/Transfer": (0.002, 0.003, 0.004, 0.005, 0.006),  # never
    "\\PhysicalDisk(_Total)\\Avg. Disk Queue Length": (1, 2, 3, 4, 5),  # never (10)
    "\\Memory\\Available MBytes": (4000, 3000, 2000, 1000, 500),  # 10 % of 8,192 MB = 819.2 at 436.2
    f"\\{NIC}\\Bytes Total/sec": (20e6, 40e6, 60e6, 80e6, 100e6),  # 16..80 % of 1 Gbit/s: 70 % at 437.5
    f"\\{NIC}\\Current Bandwidth": (1e9,) * 5,
}
DIMS = {"server_os": "2019", "disk_type": "SSD"}


@pytest.fixture
def study(client):
    campaign = make_campaign()
    run = add_run(campaign, DIMS, LEVELS, attributes={"memory_mb": 8192})
    client.force_login(make_user(campaign.project))
    return campaign, run


def scenario_of(client, campaign):
    body = client.get(f"/api/v1/campaigns/{campaign.slug}/capacity")
    assert body.status_code == 200, body.content
    (scenario,) = body.json()["scenarios"]
    return scenario


def test_every_limit_gets_its_own_users_and_the_smallest_is_limiting(client, study):
    campaign, _ = study
    scenario = scenario_of(client, campaign)
    users = {(r["resource"], r["counter"]): r["users"] for r in scenario["limits"]}
    assert users[("cpu", "\\Processor(_Total)\\% Processor Time")] == pytest.approx(450.0)
    assert users[("disk_latency", "\\PhysicalDisk(0 C:)\\Avg. Disk sec/Transfer")] == pytest.approx(
        400 + 100 / 6
    )
    assert users[("disk_latency", "\\PhysicalDisk(1 D:)\\Avg. Disk sec/Transfer")] is None
    assert users[("disk_queue", "\\PhysicalDisk(_Total)\\Avg. Disk Queue Length")] is None
    assert users[("memory", "\\Memory\\Available MBytes")] == pytest.approx(400 + 180.8 / 500 * 100)
    assert users[("network", f"\\{NIC}\\Bytes Total/sec")] == pytest.approx(437.5)
    assert scenario["limiting"] == {
        "resource": "disk_latency",
        "counter": "\\PhysicalDisk(0 C:)\\Avg. Disk sec/Transfer",
        "users": pytest.approx(416.667, abs=1e-3),
        "host": "FS01",  # the server it was reached on
    }
    runner = scenario["runner_up"]
    assert runner["resource"] == "memory"
    assert runner["margin"] == pytest.approx(436.16 - 416.667, abs=1e-3)
    # The chosen counter's answer is unchanged: CPU average at 80 %.
    assert scenario["saturation_users"] == pytest.approx(450.0) and scenario["bound"] == "interpolated"


def test_the_campaigns_own_limit_table_replaces_the_defaults(client, study):
    campaign, _ = study
    for row in DEFAULT_LIMITS:
        ResourceLimit.objects.create(campaign=campaign, **row)
    ResourceLimit.objects.filter(campaign=campaign, resource="disk_latency").update(threshold=0.05)
    ResourceLimit.objects.filter(campaign=campaign, resource="memory").update(enabled=False)
    scenario = scenario_of(client, campaign)
    assert {r["resource"] for r in scenario["limits"]} == {"cpu", "disk_latency", "disk_queue", "network"}
    assert scenario["limiting"]["resource"] == "network"
    assert scenario["limiting"]["users"] == pytest.approx(437.5)
    assert scenario["runner_up"] == {
        "resource": "cpu",
        "counter": "\\Processor(_Total)\\% Processor Time",
        "users": pytest.approx(450.0),
        "margin": pytest.approx(12.5),
        "host": "FS01",
    }


def test_memory_without_installed_size_uses_the_floor_and_fsct_overload_counts(client, study):
    campaign, run = study
    run.hosts.update(attributes={})
    step = run.steps.get(users=300)
    Measurement.objects.create(
        time=step.started_at + timedelta(minutes=1),
        run=run,
        metric="fsct.overload_pct",
        value=3.0,
        upload_id=0,
    )
    scenario = scenario_of(client, campaign)
    memory = next(r for r in scenario["limits"] if r["resource"] == "memory")
    # Floor 512 MB: 1,000 MB at 400 users, 500 at 500 -> 400 + 488/500 x 100.
    assert memory["limit"] == 512.0 and memory["users"] == pytest.approx(497.6)
    assert scenario["limiting"] == {
        "resource": "overload",
        "counter": "FSCT overload",
        "users": 300.0,
        "host": "",  # FSCT's own figure, not a server's counter
    }


def test_the_admin_writes_the_default_limits_for_editing(client, study):
    campaign, _ = study
    from django.contrib.auth import get_user_model

    admin = get_user_model().objects.create_superuser("limits-admin", "a@example.invalid", "pw-limits-1")
    client.force_login(admin)
    response = client.post(
        "/admin/core/campaign/", {"action": "write_default_limits", "_selected_action": [campaign.pk]}
    )
    assert response.status_code == 302
    rows = ResourceLimit.objects.filter(campaign=campaign)
    assert rows.count() == len(DEFAULT_LIMITS)
    assert rows.get(resource="cpu").threshold == 80.0
    assert client.get(f"/admin/core/campaign/{campaign.pk}/change/").status_code == 200


def test_the_binding_figure_is_the_lowest_of_the_counter_at_its_threshold_and_every_limit(client, study):
    campaign, _ = study
    # CPU reaches 80 % at 450 users; disk latency reaches 20 ms first, at 416.7 (steps 400..500).
    binding = scenario_of(client, campaign)["binding"]
    assert binding == {
        "resource": "disk_latency",
        "counter": "\\PhysicalDisk(0 C:)\\Avg. Disk sec/Transfer",
        "users": pytest.approx(400 + 100 / 6),
        "bound": "interpolated",
        "host": "FS01",
        "by": "limit",
        "limit": 0.02,
        "interval": [400.0, 500.0],
    }
    # 50 % lies between 40 % at 200 users and 60 % at 300: 250 users,
    # before every limit: the counter decides, with its own step interval 200..300.
    low = client.get(f"/api/v1/campaigns/{campaign.slug}/capacity?threshold=50").json()["scenarios"][0]
    assert low["binding"] == {
        "resource": "cpu",
        "counter": "\\Processor(_Total)\\% Processor Time",
        "users": pytest.approx(250.0),
        "bound": "interpolated",
        "host": "FS01",
        "by": "target",
        "interval": [200.0, 300.0],
    }

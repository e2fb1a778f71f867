"""``PUT/GET /api/v1/hosts/{name}/inventory``: stored on the host, checked, corrected, shown."""

from __future__ import annotations

import json

import pytest

from tests.factories import make_user
from webapp.core.models import Host, Run, Scenario

pytestmark = pytest.mark.django_db

INVENTORY = {
    "os": "Microsoft Windows Server 2019 Standard",
    "os_version": "10.0.17763",
    "cpu_model": "Intel(R) Xeon(R) Gold 6134 CPU @ 3.20GHz",
    "sockets": 1,
    "cores": 2,
    "logical_processors": 2,
    "memory_mb": 4096,
    "disks": [
        {"name": "PhysicalDrive0", "model": "Virtual Disk", "size_bytes": 136365211648, "media": "SSD"}
    ],
    "nics": [{"name": "Ethernet 2", "description": "Intel[R] 82574L", "speed_bps": 1e9}],
}


def put(client, name, body, token=None):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    return client.put(
        f"/api/v1/hosts/{name}/inventory", json.dumps(body), content_type="application/json", **headers
    )


def test_an_agent_records_what_the_machine_is(client, agent):
    token, campaign = agent
    response = put(client, "FS01", {"campaign": campaign.slug, "role": "server", **INVENTORY}, token)
    assert response.status_code == 200, response.content
    answer = response.json()
    assert answer["summary"] == "2 vCPU, 4 GB"
    assert answer["inventory"]["source"] == "agent"
    host = Host.objects.get(project=campaign.project, name="FS01")
    assert host.role == "server"
    assert host.os == "Microsoft Windows Server 2019 Standard 10.0.17763"
    assert host.attributes["memory_mb"] == 4096  # what the memory limit reads
    got = client.get(
        f"/api/v1/hosts/fs01/inventory?campaign={campaign.slug}", HTTP_AUTHORIZATION=f"Bearer {token}"
    )
    assert got.status_code == 200 and got.json()["inventory"]["nics"][0]["speed_bps"] == 1e9


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"memory_mb": 0}, "memory_mb"),
        ({"sockets": "two"}, "sockets"),
        ({"disks": [{"name": "d", "size_bytes": -1}]}, "disks.0.size_bytes"),
        ({"nics": [{"name": "x" * 300}]}, "nics.0.name"),
        ({"nics": [{"name": f"n{i}"} for i in range(257)]}, "nics"),
        ({"cpu_model": "a\x00b"}, "cpu_model"),
        ({"colour": "blue"}, "colour"),
    ],
)
def test_a_bad_field_is_a_400_naming_it(client, agent, change, named):
    token, campaign = agent
    response = put(client, "FS01", {"campaign": campaign.slug, **INVENTORY, **change}, token)
    assert response.status_code == 400, response.content
    assert response.json()["error"]["message"].startswith(f"{named}:")
    assert not Host.objects.filter(name="FS01").exists()


def test_a_correction_stands_against_the_next_agent_report(client, agent):
    token, campaign = agent
    put(client, "FS01", {"campaign": campaign.slug, **INVENTORY}, token)
    editor = make_user(campaign.project, role="editor")
    client.force_login(editor)
    fixed = put(client, "FS01", {"campaign": campaign.slug, **INVENTORY, "memory_mb": 8192})
    assert fixed.status_code == 200 and fixed.json()["summary"] == "2 vCPU, 8 GB"
    client.logout()
    again = put(client, "FS01", {"campaign": campaign.slug, **INVENTORY}, token)
    assert again.json()["kept_edited"] is True
    assert again.json()["reported"]["memory_mb"] == 4096
    assert Host.objects.get(name="FS01").attributes["memory_mb"] == 8192


def test_a_viewer_may_read_but_not_correct(client, agent):
    token, campaign = agent
    put(client, "FS01", {"campaign": campaign.slug, **INVENTORY}, token)
    client.force_login(make_user(campaign.project, role="viewer"))
    assert put(client, "FS01", {"campaign": campaign.slug, **INVENTORY}).status_code == 403
    assert client.get(f"/api/v1/hosts/FS01/inventory?campaign={campaign.slug}").status_code == 200


def test_runs_list_their_machines_with_the_summary(client, agent):
    token, campaign = agent
    put(client, "FS01", {"campaign": campaign.slug, "role": "server", **INVENTORY}, token)
    run = Run.objects.create(campaign=campaign, scenario=Scenario.for_dims(campaign, {}), name="r1")
    run.hosts.add(Host.objects.get(name="FS01"))
    client.force_login(make_user(campaign.project))
    rows = client.get(f"/api/v1/campaigns/{campaign.slug}/runs").json()["runs"]
    assert rows[0]["hosts"] == [{"name": "FS01", "role": "server", "summary": "2 vCPU, 4 GB"}]
    page = client.get(f"/campaigns/{campaign.slug}/").content.decode()
    assert "FS01 (2 vCPU, 4 GB)" in page

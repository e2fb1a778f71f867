"""The memory and network limits evaluate on a live-sampled server with its recorded inventory.

The agent's own code makes the requests (Sampler on fixed psutil readings,
``batch_body``, the inventory body); the server stores them through the real
API and pipeline, and the capacity API's limits are checked against users
computed by hand.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from headroom_agent.config import Settings
from headroom_agent.inventory import request_body
from headroom_agent.sample import Sampler, batch_body, utc_stamp

from tests.agents.fake_psutil import Clock, fake_psutil, nic
from workers.tasks import ingest_upload

pytestmark = pytest.mark.django_db

START = datetime(2024, 5, 1, 10, 0, tzinfo=UTC)
# Users -> (available MB, eth0 bytes/s). 8,192 MB installed: the limit is 10 % = 819.2 MB.
# eth0's link is 1 Gbit/s (inventory only, no Current Bandwidth series): 25, 75, 100 MB/s are 20, 60, 80 %.
STEPS = {100: (6000, 25_000_000), 200: (3000, 75_000_000), 300: (500, 100_000_000)}


def live_samples() -> list[dict[str, object]]:
    psutil = fake_psutil()
    clock = Clock(0.0)
    psutil.nics = {"eth0": nic(0, 0)}
    sampler = Sampler("FS01", ["mem", "net"], psutil=psutil, clock=clock)
    sampler.prime()
    samples = []
    sent = 0
    for index, (available, rate) in enumerate(STEPS.values()):
        for minute in range(1, 10):  # one reading a minute inside each ten-minute step
            clock.now += 60.0
            sent += rate * 60
            psutil.nics = {"eth0": nic(sent, 0)}
            psutil.available = available * 1024 * 1024
            stamp = utc_stamp(START + timedelta(minutes=10 * index + minute))
            samples += [{"time": stamp, "counter": p, "value": v} for p, v in sampler.read()]
    return samples


def test_memory_and_network_limits_use_the_inventory(client, agent):
    token, campaign = agent
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    inventory = {
        "os": "Ubuntu",
        "os_version": "22.04",
        "logical_processors": 2,
        "memory_mb": 8192,
        "disks": [],
        "nics": [{"name": "eth0", "speed_bps": 1e9}],
    }
    settings = Settings(
        server="",
        token="",
        campaign=campaign.slug,
        host="FS01",
        role="server",
        scenario={},
        spool_dir=Path("."),
        data_dir=Path("."),
        config_path=Path("."),
    )
    response = client.put(
        "/api/v1/hosts/FS01/inventory",
        request_body(settings, inventory),
        content_type="application/json",
        **auth,
    )
    assert response.status_code == 200, response.content
    run = client.post(
        "/api/v1/runs",
        json.dumps({"campaign": campaign.slug, "name": "live1"}),
        content_type="application/json",
        **auth,
    ).json()
    body = {"campaign": campaign.slug, "host": "FS01", "role": "server", "scenario": {}, "run": "live1"}
    batch = client.post(
        "/api/v1/samples",
        batch_body(body, live_samples()),
        content_type="application/json",
        HTTP_CONTENT_ENCODING="gzip",
        **auth,
    )
    assert batch.status_code == 202, batch.content
    ingest_upload.apply(args=(batch.json()["id"],))
    steps = [
        {
            "users": users,
            "started_at": (START + timedelta(minutes=10 * i)).isoformat(),
            "ended_at": (START + timedelta(minutes=10 * i + 10)).isoformat(),
        }
        for i, users in enumerate(STEPS)
    ]
    posted = client.post(
        f"/api/v1/runs/{run['id']}/steps", json.dumps(steps), content_type="application/json", **auth
    )
    assert posted.status_code == 200, posted.content

    capacity = client.get(f"/api/v1/campaigns/{campaign.slug}/capacity", **auth)
    assert capacity.status_code == 200, capacity.content
    (scenario,) = capacity.json()["scenarios"]
    limits = {
        r["resource"]: r
        for r in scenario["limits"]
        if r["counter"] != "\\Network Interface(_Total)\\Bytes Total/sec"
    }
    memory = limits["memory"]
    # 10 % of 8,192 MB = 819.2 MB; 3,000 MB at 200 users, 500 at 300: 200 + 2,180.8 / 2,500 x 100.
    assert memory["limit"] == pytest.approx(819.2)
    assert memory["users"] == pytest.approx(287.232)
    network = limits["network"]
    assert network["counter"] == "\\Network Interface(eth0)\\Bytes Total/sec"
    # 70 % of the link: 60 % at 200 users, 80 % at 300 -> 250.
    assert network["limit"] == 70.0 and network["users"] == pytest.approx(250.0)
    assert scenario["limiting"]["resource"] == "network"

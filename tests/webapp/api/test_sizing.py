"""``GET /api/v1/campaigns/{slug}/sizing``: servers per scenario, with the arithmetic, by hand."""

from __future__ import annotations

import pytest

from tests.factories import make_campaign, make_user
from tests.webapp.analysis.studies import add_run
from tests.webapp.dashboard.demo import load_demo

pytestmark = pytest.mark.django_db

CPU = "\\Processor(_Total)\\% Processor Time"
QUEUE = "\\PhysicalDisk(_Total)\\Avg. Disk Queue Length"


@pytest.fixture
def study(client):
    campaign = make_campaign()
    add_run(campaign, {"disk_type": "SSD"}, {CPU: (20, 40, 60, 70, 90)}, day=0)  # 60 % at 300 users
    add_run(campaign, {"disk_type": "HDD"}, {CPU: (70, 75, 80, 85, 90)}, day=1, host="FS02")  # < 100
    add_run(campaign, {"disk_type": "NVMe"}, {CPU: (5, 6, 7, 8, 9)}, day=2, host="FS03")  # not reached
    client.force_login(make_user(campaign.project))
    return campaign


def sizing(client, campaign, query):
    response = client.get(f"/api/v1/campaigns/{campaign.slug}/sizing?{query}")
    assert response.status_code == 200, response.content
    return {s["dims"]["disk_type"]: s for s in response.json()["scenarios"]}


def test_servers_are_the_population_over_users_per_server_rounded_up_plus_redundancy(client, study):
    found = sizing(client, study, "users=1000&target=60&redundancy=1")
    ssd = found["SSD"]
    # 60 % is reached at exactly 300 users: ceil(1,000 / 300) = 4, + 1 spare = 5.
    assert ssd["users_per_server"] == pytest.approx(300.0) and ssd["bound"] == "interpolated"
    assert ssd["servers"] == 5
    assert (
        "ceil(1,000 / 300.0) = 4 server(s) for the load + 1 for redundancy (N+1) = 5." in ssd["assumptions"]
    )
    assert ssd["servers_interval"] == [
        5,
        6,
    ]  # step bounds 200..300 users: ceil(1,000/300)+1 .. ceil(1,000/200)+1
    # 65 % lies between 60 % at 300 and 70 % at 400: 350 users per server, ceil(1,000 / 350) + 2 = 5.
    assert sizing(client, study, "users=1000&target=65&redundancy=2")["SSD"]["servers"] == 5


def test_a_target_exceeded_at_the_first_step_gives_no_count_and_one_never_reached_an_upper_bound(
    client, study
):
    found = sizing(client, study, "users=1000&target=60&redundancy=1")
    assert found["HDD"]["bound"] == "below_first_step" and found["HDD"]["servers"] is None
    assert found["HDD"]["users_per_server"] is None
    # NVMe: 5..9 %, a line that reaches 60 % only far beyond 2 x 500 users -> not reached; the highest tested
    # load stands in: ceil(1,000 / 500) + 1 = 3 servers at most.
    nvme = found["NVMe"]
    assert nvme["bound"] == "not_reached" and nvme["users_per_server"] == 500.0 and nvme["servers"] == 3


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ("users=0", "invalid_users"),
        ("users=100&target=-5", "invalid_target"),
        ("users=100&target=nan", "invalid_target"),
        ("users=100&redundancy=-1", "invalid_redundancy"),
        ("users=100&stat=median", "invalid_stat"),
        ("users=100&trim=50", "invalid_trim"),
        ("users=100&counter=nonsense", "invalid_counter"),
    ],
)
def test_bad_parameters_answer_400_with_a_code(client, study, query, code):
    response = client.get(f"/api/v1/campaigns/{study.slug}/sizing?{query}")
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == code


def test_the_demo_sizes_3000_users_at_60_percent_cpu_per_fsct_scenario(client):
    campaign = load_demo(kinds=("perfmon_csv",))
    client.force_login(make_user(campaign.project))
    body = client.get("/api/v1/campaigns/demo/sizing?users=3000&target=60&redundancy=1").json()
    found = {
        (s["dims"].get("server_os"), s["dims"].get("disk_type"), s["dims"].get("av")): s
        for s in body["scenarios"]
    }
    # AV on: 56 % at 600 users, 66 % at 700 -> 640 per server; ceil(3,000 / 640) = 5, N+1 = 6.
    av_on = found[("2012 R2", "SSD", "on")]
    assert av_on["users_per_server"] == pytest.approx(640.0, abs=0.1) and av_on["servers"] == 6
    # No AV: 53 % at 700, 62 % at 800 -> 777.8 per server; ceil(3,000 / 777.8) = 4, N+1 = 5.
    no_av = found[("2012 R2", "SSD", "off")]
    assert no_av["users_per_server"] == pytest.approx(700 + 7 / 9 * 100, abs=0.1) and no_av["servers"] == 5
    assert body["users"] == 3000 and body["redundancy"] == 1 and body["target"] == 60.0
    for row in (av_on, no_av):
        assert row["binding"]["resource"] == "cpu" and row["binding"]["by"] == "target"
        assert row["counter_servers"] == row["servers"]
    # HDD, AV off: CPU reaches 60 % at 678 users (ceil(3,000 / 677.8) + 1 = 6 servers), but the disk queue
    # reaches its limit (10) at 522 first. 5 working servers x 522 = 2,610 < 3,000: ceil(3,000 / 522.x) = 6,
    # N+1 = 7.
    hdd = found[("2012 R2", "HDD", "off")]
    assert hdd["binding"]["resource"] == "disk_queue" and hdd["binding"]["by"] == "limit"
    assert hdd["users_per_server"] == pytest.approx(522, abs=0.5) == hdd["binding"]["users"]
    assert hdd["servers"] == 7
    assert hdd["counter_users_per_server"] == pytest.approx(677.8, abs=0.1) and hdd["counter_servers"] == 6
    assert "users_per_server" not in body["method"] and "servers_interval" not in body["method"]


@pytest.fixture
def disk_bound(client):
    """Two scenarios with the same CPU curve (60 % at 300 users); on HDD the disk queue reaches 10 first."""
    campaign = make_campaign()
    add_run(campaign, {"disk_type": "SSD"}, {CPU: (20, 40, 60, 70, 90), QUEUE: (1, 2, 3, 4, 5)}, day=0)
    # Queue 4 at 100 users, 12 at 200: 10 at 100 + (10 - 4) / (12 - 4) x 100 = 175 users.
    add_run(
        campaign,
        {"disk_type": "HDD"},
        {CPU: (20, 40, 60, 70, 90), QUEUE: (4, 12, 15, 20, 30)},
        day=1,
        host="FS02",
    )
    client.force_login(make_user(campaign.project))
    return campaign


def test_a_disk_queue_limit_reached_before_the_target_decides_the_users_per_server(client, disk_bound):
    found = sizing(client, disk_bound, "users=3000&target=60&redundancy=1")
    hdd = found["HDD"]
    assert hdd["binding"] == {
        "resource": "disk_queue",
        "counter": QUEUE,
        "users": pytest.approx(175.0),
        "bound": "interpolated",
        "host": "FS02",
        "by": "limit",
        "limit": 10.0,
        "interval": [100.0, 200.0],
    }
    # ceil(3,000 / 175) = ceil(17.14) = 18 for the load + 1 = 19; CPU alone: ceil(3,000 / 300) + 1 = 11.
    assert hdd["users_per_server"] == pytest.approx(175.0) and hdd["servers"] == 19
    assert hdd["bound"] == "interpolated" and hdd["interval"] == [100.0, 200.0]
    # The range follows the disk queue's steps 100..200: ceil(3,000 / 200) + 1 = 16 .. ceil(3,000 / 100) + 1 = 31.
    assert hdd["servers_interval"] == [16, 31]
    assert hdd["counter_users_per_server"] == pytest.approx(300.0) and hdd["counter_servers"] == 11
    assert hdd["counter_servers_interval"] == [11, 16] and hdd["counter_bound"] == "interpolated"
    assert (
        "ceil(3,000 / 175.0) = 18 server(s) for the load + 1 for redundancy (N+1) = 19." in hdd["assumptions"]
    )
    assert any(
        a.startswith("One server carries 175 users before the disk queue reaches 10")
        for a in hdd["assumptions"]
    )
    assert any("disk queue's interval (100 to 200 users per server)" in a for a in hdd["assumptions"])


def test_when_cpu_reaches_the_target_first_it_decides_and_both_figures_agree(client, disk_bound):
    ssd = sizing(client, disk_bound, "users=3000&target=60&redundancy=1")["SSD"]
    assert ssd["binding"]["resource"] == "cpu" and ssd["binding"]["by"] == "target"
    assert ssd["binding"]["counter"] == CPU and ssd["binding"]["users"] == pytest.approx(300.0)
    # ceil(3,000 / 300) = 10 + 1 = 11, from the CPU steps 200..300: 11 .. ceil(3,000 / 200) + 1 = 16.
    assert ssd["users_per_server"] == pytest.approx(300.0) and ssd["servers"] == 11 == ssd["counter_servers"]
    assert ssd["servers_interval"] == [11, 16] == ssd["counter_servers_interval"]

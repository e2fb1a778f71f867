"""Several hosts in one run (issue 20): compare, copies and capacity combine them by what each figure is.

Rates and counts are summed, a mean latency is weighted by its IOPS, a
percentile is the highest host's and never an average, and each view keeps
every host's own figure for its per-host rows (``analysis.hosts``).
"""

from __future__ import annotations

import pytest

from tests.factories import make_campaign
from tests.ingest import ingest_path
from tests.paths import FIXTURES
from webapp.analysis.compare import campaign_compare
from webapp.core.models import Campaign, Scenario

pytestmark = pytest.mark.django_db

DISKSPD = FIXTURES / "diskspd_xml" / "vc_Results_DiskSpd_2.0.21a.xml"
IOPS = 52915 / 120.01  # the file's Total IOCount / TestTimeSeconds


def _fleet(campaign: Campaign) -> dict[str, dict]:
    """The real DiskSpd XML from VM01 alone (SSD) and from VM02 and VM03 together in one run (HDD)."""
    for host, disk in (("VM01", "SSD"), ("VM02", "HDD"), ("VM03", "HDD")):
        upload = ingest_path(campaign, DISKSPD, scenario={"disk_type": disk}, host=host, run=f"{disk}-run")
        assert upload.status == "stored", upload.error
    baseline = Scenario.objects.get(campaign=campaign, disk_type="SSD")
    rows = campaign_compare(campaign, baseline)["results"]
    return {
        f"{r['dims']['disk_type']} {r['metric']}": r
        for r in rows
        if r["subject"] == "" and r["metric"].startswith("total.")
    }


def test_compare_sums_a_fleets_iops_and_keeps_each_hosts_figure(campaign):
    rows = _fleet(campaign)
    fleet, alone = rows["HDD total.iops"], rows["SSD total.iops"]
    assert alone["mean"] == pytest.approx(IOPS, abs=0.01)
    assert (fleet["n"], fleet["hosts"], fleet["combined"]) == (1, 2, "sum")
    assert fleet["mean"] == pytest.approx(2 * IOPS, abs=0.01)
    assert fleet["per_host"] == [
        ["VM02", pytest.approx(IOPS, abs=0.01)],
        ["VM03", pytest.approx(IOPS, abs=0.01)],
    ]
    assert (alone["hosts"], alone["combined"], alone["per_host"]) == (1, "", [["VM01", alone["mean"]]])


def test_compare_never_averages_a_fleets_percentiles(campaign):
    """Two hosts' p99 at one moment of one run are one result, the highest host's; the mean is IOPS-weighted."""
    rows = _fleet(campaign)
    for name in ("total.latency.p99_ms", "total.latency.avg_ms"):
        fleet, alone = rows[f"HDD {name}"], rows[f"SSD {name}"]
        assert fleet["n"] == 1, name  # was 2: each host's figure pooled as a sample of its own
        assert fleet["mean"] == pytest.approx(
            alone["mean"]
        )  # the same file on both: the combination is its figure
        assert [host for host, _ in fleet["per_host"]] == ["VM02", "VM03"]
    assert rows["HDD total.latency.p99_ms"]["combined"] == "maximum"
    assert rows["HDD total.latency.avg_ms"]["combined"] == "IOPS-weighted mean"


MT16 = FIXTURES / "robocopy" / "ripvannwinkler_robocopy_NFL_MT16.log"  # 11:08:15 to 11:09:06 AM: 51 s


def _copies(campaign: Campaign, zones: dict[str, str]) -> dict:
    """The real /MT:16 log from each host into one run; ``zones`` (host -> time zone) shift its clock."""
    for host, zone in zones.items():
        upload = ingest_path(
            campaign, MT16, scenario={"technique": "robocopy"}, host=host, run="copy", timezone=zone
        )
        assert upload.status == "stored", upload.error
    from webapp.analysis.copies import copy_comparison

    return copy_comparison(campaign)


def test_copies_that_ran_at_once_take_the_wall_clock_and_sum_their_bytes(campaign):
    alone = _copies(make_campaign(campaign.project), {"FS01": "America/Chicago"})
    copied = next(f["mean"] for f in alone["figures"] if f["metric"] == "bytes.copied")
    assert copied == pytest.approx(76.290 * 2**30, rel=1e-4)  # "Bytes : 76.290 g"
    body = _copies(campaign, {"FS01": "America/Chicago", "FS02": "America/Chicago"})
    (config,) = body["configurations"]
    assert (config["seconds"], config["hosts"]) == ([51.0], 2)  # one copy of both, not two rounds
    assert config["combined"] == "wall clock, first start to last end"
    assert config["per_host"] == [["FS01", 51.0], ["FS02", 51.0]]
    figures = {f["metric"]: f for f in body["figures"]}
    assert (figures["bytes.copied"]["mean"], figures["bytes.copied"]["combined"]) == (2 * copied, "sum")
    assert figures["files.copied"]["mean"] == 20  # "Files : 10" on each
    speed = figures["speed.bytes_per_s"]
    assert speed["mean"] == pytest.approx(2 * copied / 51)
    assert speed["combined"] == "bytes copied / wall clock"
    assert speed["per_host"] == [
        ["FS01", 1915409756.0],
        ["FS02", 1915409756.0],
    ]  # "Speed : 1,915,409,756 Bytes/sec."


def test_a_later_hosts_copy_stretches_the_wall_clock_to_its_end(campaign):
    """FS02's clock reads the same 11:08:15 in New York: an hour earlier in UTC than FS01's in Chicago."""
    body = _copies(campaign, {"FS01": "America/Chicago", "FS02": "America/New_York"})
    (config,) = body["configurations"]
    assert config["seconds"] == [3600.0 + 51.0]  # 15:08:15 UTC (FS02) to 16:09:06 UTC (FS01)
    speed = next(f for f in body["figures"] if f["metric"] == "speed.bytes_per_s")
    copied = next(f for f in body["figures"] if f["metric"] == "bytes.copied")["mean"]
    assert speed["mean"] == pytest.approx(copied / 3651)


CPU = "\\Processor(_Total)\\% Processor Time"
QUEUE = "\\PhysicalDisk(_Total)\\Avg. Disk Queue Length"


def test_two_servers_in_one_run_are_never_averaged_and_the_first_to_saturate_decides(client, campaign):
    """FS01's CPU reaches 80 % at 400 + 10/20 x 100 = 450 users; FS02's queue reaches 10 at 200 + 2/4 x 100 = 250.

    Averaged together they would read CPU 15..70 % (never 80 %) and a queue of 10 at 400 users.
    """
    from tests.factories import make_user
    from tests.webapp.analysis.studies import add_run, add_server

    run = add_run(campaign, {"disk_type": "SSD"}, {CPU: (20, 40, 60, 70, 90), QUEUE: (1, 2, 3, 4, 5)})
    add_server(run, "FS02", {CPU: (10, 20, 30, 40, 50), QUEUE: (4, 8, 12, 16, 20)})
    client.force_login(make_user(campaign.project))
    body = client.get(f"/api/v1/campaigns/{campaign.slug}/capacity")
    assert body.status_code == 200, body.content
    (scenario,) = body.json()["scenarios"]
    assert (scenario["saturation_users"], scenario["bound"], scenario["host"]) == (
        pytest.approx(450.0),
        "interpolated",
        "FS01",
    )
    assert [s["avg"] for s in scenario["steps"]] == pytest.approx([20, 40, 60, 70, 90])
    assert [(h["host"], h["bound"]) for h in scenario["per_host"]] == [
        ("FS01", "interpolated"),
        ("FS02", "extrapolated"),
    ]
    assert [s["avg"] for s in scenario["per_host"][1]["steps"]] == pytest.approx([10, 20, 30, 40, 50])
    queues = {r["host"]: r["users"] for r in scenario["limits"] if r["resource"] == "disk_queue"}
    assert queues == {"FS01": None, "FS02": pytest.approx(250.0)}
    assert scenario["limiting"] == {
        "resource": "disk_queue",
        "counter": QUEUE,
        "users": pytest.approx(250.0),
        "host": "FS02",
    }
    assert (scenario["binding"]["by"], scenario["binding"]["host"]) == ("limit", "FS02")

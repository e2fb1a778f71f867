"""Compare (issue 15 item 6): only executions with the same parameters are compared; headline metrics first.

Real DiskSpd text reports go through the real pipeline: the baseline holds a
4 KiB 50 % write QD 32 test (Azure A2, 403.66 IO/s) and an 8 KiB write test
(330,118.77 IO/s); the other scenario holds the same 4 KiB command on a laptop
(219.04 IO/s) and a 4 KiB 100 % write test with other threads and depth
(508.09 IO/s), which has no like in the baseline.
"""

from __future__ import annotations

import pytest

from tests.ingest import ingest_path
from tests.paths import FIXTURES
from webapp.analysis.compare import campaign_compare
from webapp.analysis.metric_groups import execution_label, metric_group
from webapp.core.models import Scenario

DISKSPD = FIXTURES / "diskspd_txt"
WHEN = {"started_at": "2015-03-02T09:00:00Z"}


@pytest.fixture
def two_scenarios(campaign):
    for name, disk in (
        ("basilkisel_azure_A2_single.txt", "azure"),
        ("vc_DiskSpd_Write8k_utf8bom_manythreads.txt", "azure"),
        ("basilkisel_lenovo_cp1251_wrapped80.txt", "laptop"),
        ("vc_DiskSpd_2.2.0_SingleGroup.txt", "laptop"),
    ):
        upload = ingest_path(campaign, DISKSPD / name, scenario={"disk_type": disk}, host=disk, extra=WHEN)
        assert upload.status == "stored", upload.error
    return campaign


def _rows(body, metric, subject=""):
    return [r for r in body["results"] if r["metric"] == metric and r["subject"] == subject]


def test_it_compares_iops_only_between_executions_with_the_same_parameters(two_scenarios):
    baseline = Scenario.objects.get(campaign=two_scenarios, disk_type="azure")
    body = campaign_compare(two_scenarios, baseline, "total.iops")
    rows = {
        (r["label"], r["params"]["block_size"], r["params"]["write_pct"]): r
        for r in _rows(body, "total.iops")
    }
    laptop_4k = next(r for k, r in rows.items() if "laptop" in k[0] and k[2] == "50")
    assert laptop_4k["mean"] == pytest.approx(219.04, abs=0.01)
    assert laptop_4k["factor"] == pytest.approx(219.04 / 403.66, abs=1e-4)
    assert laptop_4k["execution"] == "4 KiB · 50 % write · random · QD 32 · 2 threads"
    # The 4 KiB write-only test has no like in the baseline: no factor, never 508 / 330,119 or 508 / 404.
    write_only = next(r for k, r in rows.items() if "laptop" in k[0] and k[2] == "100")
    assert write_only["mean"] == pytest.approx(508.09, abs=0.01)
    assert write_only["factor"] is None and write_only["matched"] is False
    eight_k = next(r for k, r in rows.items() if k[1] == "8192")
    assert eight_k["is_baseline"] and eight_k["mean"] == pytest.approx(330118.77, abs=0.01)
    assert body["unmatched"] == 2  # the write-only test, all targets and its one target


def test_no_test_is_claimed_where_a_side_has_one_value(two_scenarios):
    baseline = Scenario.objects.get(campaign=two_scenarios, disk_type="azure")
    body = campaign_compare(two_scenarios, baseline)
    assert body["results"] and all(r["tested"] is False and r["p_value"] is None for r in body["results"])
    assert not any(r["significant"] for r in body["results"])


def test_headline_metrics_are_the_four_diskspd_totals(two_scenarios):
    baseline = Scenario.objects.get(campaign=two_scenarios, disk_type="azure")
    body = campaign_compare(two_scenarios, baseline)
    headline = sorted({r["metric"] for r in body["results"] if r["headline"]})
    assert headline == ["total.iops", "total.latency.avg_ms", "total.latency.p99_ms", "total.mbps"]
    assert all(r["subject"] == "" for r in body["results"] if r["headline"])
    assert len({r["metric"] for r in body["results"]}) > 20  # the rest is there, behind the groups
    assert body["groups"][0] == "headline" and "latency percentiles" in body["groups"]


def test_the_api_keeps_its_fields_and_adds_the_execution(client, agent, two_scenarios):
    token, campaign = agent
    baseline = Scenario.objects.get(campaign=campaign, disk_type="azure")
    response = client.get(
        f"/api/v1/campaigns/{campaign.slug}/compare",
        {"baseline": baseline.pk, "metric": "total.mbps"},
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )
    assert response.status_code == 200
    rows = [r for r in response.json()["results"] if r["subject"] == ""]
    assert len(rows) == 4
    eight_k = next(r for r in rows if r["params"]["block_size"] == "8192")
    assert eight_k["mean"] == pytest.approx(2579.05 * 1.048576, abs=0.01)  # MiB/s printed, MB/s stored
    assert eight_k["execution"] == "8 KiB · 100 % write · random · QD 22 · 115 threads"
    old = {"scenario", "label", "dims", "metric", "subject", "unit", "n", "mean", "stdev", "min", "max"}
    assert all(
        old | {"factor", "p_value", "significant", "is_baseline", "execution", "params"} <= set(r)
        for r in rows
    )


def test_groups_and_labels_by_hand():
    assert metric_group("diskspd", "total.iops", "") == "headline"
    assert metric_group("diskspd", "total.iops", "C:\\testfile.foo") == "per target or job"
    assert metric_group("diskspd", "read.latency.p99_9999999_ms", "") == "latency percentiles"
    assert metric_group("diskspd", "total.bytes", "") == "bytes and counts"
    assert metric_group("fio", "write.clat.p99_ms", "job1") == "headline"
    assert metric_group("robocopy", "speed.bytes_per_s", "") == "headline"
    assert metric_group("robocopy", "files.copied", "") == "bytes and counts"
    assert metric_group("timing", "Word launch", "") == "headline"
    assert (
        execution_label({"block_size": "65536", "iodepth": "32", "rw": "randread"})
        == "64 KiB · randread · QD 32"
    )


def test_one_value_against_one_gets_no_verdict_but_too_few_runs(client, agent, two_scenarios):
    # Issue 20 item 9: 219.04 IO/s (laptop, one run) against 403.66 IO/s (Azure A2, one run) is a factor
    # of 0.5426 with no significance verdict at all -- neither "significant" nor "not significant".
    token, campaign = agent
    baseline = Scenario.objects.get(campaign=campaign, disk_type="azure")
    response = client.get(
        f"/api/v1/campaigns/{campaign.slug}/compare",
        {"baseline": baseline.pk, "metric": "total.iops"},
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )
    rows = [r for r in response.json()["results"] if r["subject"] == ""]
    laptop_4k = next(r for r in rows if not r["is_baseline"] and r["params"]["write_pct"] == "50")
    assert laptop_4k["n"] == 1 and laptop_4k["factor"] == pytest.approx(219.04 / 403.66, abs=1e-4)
    assert laptop_4k["tested"] is False and laptop_4k["p_value"] is None
    assert laptop_4k["significant"] is None and laptop_4k["verdict"] == "too few runs"
    write_only = next(r for r in rows if not r["is_baseline"] and r["params"]["write_pct"] == "100")
    assert write_only["significant"] is None and write_only["verdict"] == "not compared"
    assert {r["verdict"] for r in rows if r["is_baseline"]} == {"baseline"}

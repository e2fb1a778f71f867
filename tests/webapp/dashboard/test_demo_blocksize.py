"""The demo's DiskSpd sweeps go through the real ingest path and fill the Block size page (seed 000)."""

from __future__ import annotations

import pytest

from tests.factories import make_user
from tests.webapp.dashboard.demo import load_demo
from webapp.analysis.blocksize import block_size_points
from webapp.core.models import Run, Upload

pytestmark = pytest.mark.django_db

BLOCKS = [4096, 8192, 16384, 65536, 262144, 1048576]


def test_the_demo_diskspd_reports_become_one_run_per_block_size_and_fill_the_block_size_page(client):
    campaign = load_demo(kinds=("diskspd_text",), rollups=False)
    uploads = Upload.objects.filter(campaign=campaign, kind="diskspd_text")
    assert uploads.count() == 4 and {u.status for u in uploads} == {"stored"}
    sweeps = Run.objects.filter(campaign=campaign, tool="diskspd", attributes__has_key="block_size")
    assert sweeps.count() == 4 * 6
    assert {run.attributes["write_pct"] for run in sweeps} == {"30"}

    points = block_size_points(campaign)
    throughput = [p for p in points if p.family == "mbps" and p.direction == "total"]
    by_scenario: dict[str, list[tuple[int | None, float]]] = {}
    for point in throughput:
        assert point.runs == 1  # one execution per block size: nothing averaged across sizes
        by_scenario.setdefault(point.label, []).append((point.block_bytes, point.value))
    assert len(by_scenario) == 4
    for label, values in by_scenario.items():
        assert [size for size, _ in values] == BLOCKS, label
    balanced = next(v for k, v in by_scenario.items() if "2.1" in k and "balanced" in k)
    high = next(v for k, v in by_scenario.items() if "2.1" in k and "high performance" in k)
    assert balanced[0][1] / high[0][1] < 0.75  # 4 KiB over SMB 2.1 drops when the host saves power

    client.force_login(make_user(campaign.project))
    html = client.get("/campaigns/demo/block-size/").content.decode()
    assert "No DiskSpd or fio results" not in html and "blocksize.js" in html

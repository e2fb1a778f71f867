"""TimescaleDB installed but not preloaded: ``auto`` builds plain tables and /healthz says why;
``on`` refuses with a message that names ``shared_preload_libraries``.

A private cluster from the TimescaleDB build (extension files present) runs
without ``shared_preload_libraries``, which is where TimescaleDB refuses
``CREATE EXTENSION`` ("extension timescaledb must be preloaded").
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator

import pytest

from tests.paths import REPO
from tests.pg_cluster import Cluster, require_timescale_bin

pytestmark = pytest.mark.integration

HEALTH = """
import json
from webapp.ops.health import check_timescale
print(json.dumps(check_timescale()))
"""


@pytest.fixture(scope="module")
def unpreloaded() -> Iterator[Cluster]:
    # One cluster per test process: two runs at once (both modes on one machine) must not share it.
    server = Cluster(f"unpreloaded-{os.getpid()}", require_timescale_bin(), preload=False)
    yield server
    server.close()
    shutil.rmtree(server.root, ignore_errors=True)


def manage(url: str, mode: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "HEADROOM_TIMESCALE": mode,
        "SECRET_KEY": "test-only-secret-key-" + "x" * 40,
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args], env=env, cwd=REPO, capture_output=True, text=True, timeout=300
    )


def test_auto_falls_back_to_plain_tables_and_health_says_why(unpreloaded: Cluster) -> None:
    url = unpreloaded.fresh_database("auto_mode")
    migrated = manage(url, "auto", "migrate", "--no-input", "-v", "0")
    assert migrated.returncode == 0, migrated.stderr[-2000:]
    assert (
        "using plain PostgreSQL tables because the timescaledb extension is installed but not preloaded"
        in (migrated.stderr)
    )
    health = manage(url, "auto", "shell", "-c", HEALTH)
    assert health.returncode == 0, health.stderr[-2000:]
    check = json.loads(health.stdout.strip().splitlines()[-1])
    assert check["ok"] is True
    assert check["mode"] == "postgresql"
    assert "installed but not preloaded" in check["note"]
    assert "shared_preload_libraries = 'timescaledb'" in check["note"]


def test_on_refuses_and_names_the_setting(unpreloaded: Cluster) -> None:
    url = unpreloaded.fresh_database("on_mode")
    migrated = manage(url, "on", "migrate", "--no-input", "-v", "0")
    assert migrated.returncode != 0
    assert (
        "HEADROOM_TIMESCALE=on but the timescaledb extension is installed but not preloaded"
        in migrated.stderr
    )
    assert "shared_preload_libraries" in migrated.stderr
    assert "must be preloaded" not in migrated.stderr  # our message comes before TimescaleDB's own


def test_off_builds_plain_tables_without_a_note(unpreloaded: Cluster) -> None:
    url = unpreloaded.fresh_database("off_mode")
    assert manage(url, "off", "migrate", "--no-input", "-v", "0").returncode == 0
    check = json.loads(manage(url, "off", "shell", "-c", HEALTH).stdout.strip().splitlines()[-1])
    assert check == {"ok": True, "mode": "postgresql"}

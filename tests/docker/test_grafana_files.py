"""The compose file's `grafana` profile mounts what Grafana's provisioning files expect.

No Docker engine is needed: the compose file and the provisioning files are
parsed and cross-checked.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

import yaml

from tests.ops.grafana_queries import dashboard
from tests.paths import REPO

DOCKER = REPO / "docker"
PROVISIONING = DOCKER / "grafana" / "provisioning"


def services() -> dict[str, Any]:
    data = yaml.safe_load((DOCKER / "compose.yaml").read_text())
    assert isinstance(data, dict)
    return data["services"]


def mounts(service: dict[str, Any]) -> dict[str, str]:
    """Container path -> host path (relative to docker/) of the service's bind mounts."""
    found = {}
    for volume in service["volumes"]:
        source, target, *_ = volume.split(":")
        if source.startswith("./"):
            found[target] = source
    return found


def test_it_runs_a_pinned_grafana_on_loopback_only_in_its_profile():
    grafana = services()["grafana"]
    assert grafana["profiles"] == ["grafana"]
    assert re.fullmatch(r"grafana/grafana-oss:\d+\.\d+\.\d+", grafana["image"])
    assert grafana["ports"] == ["127.0.0.1:3000:3000"]
    assert grafana["depends_on"]["grafana-reader"]["condition"] == "service_completed_successfully"


def test_it_mounts_the_provisioning_files_and_the_dashboard_where_grafana_reads_them():
    grafana = services()["grafana"]
    bound = mounts(grafana)
    for source in bound.values():
        assert (DOCKER / source).exists(), source
    assert bound["/etc/grafana/provisioning/datasources"] == "./grafana/provisioning/datasources"
    assert bound["/etc/grafana/provisioning/dashboards"] == "./grafana/provisioning/dashboards"

    provider = yaml.safe_load((PROVISIONING / "dashboards" / "headroom.yaml").read_text())
    (path,) = [p["options"]["path"] for p in provider["providers"]]
    assert bound[path] == "./grafana/dashboards"
    home = PurePosixPath(grafana["environment"]["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"])
    assert str(home.parent) == path and (DOCKER / "grafana" / "dashboards" / home.name).exists()


def test_the_data_source_is_the_dashboards_default_and_gets_its_settings_from_the_environment():
    config = yaml.safe_load((PROVISIONING / "datasources" / "headroom.yaml").read_text())
    (source,) = config["datasources"]
    assert source["type"] == "grafana-postgresql-datasource" and source["user"] == "grafana_reader"
    (variable,) = [v for v in dashboard()["templating"]["list"] if v["type"] == "datasource"]
    assert variable["current"]["value"] == source["uid"]
    assert variable["query"] == source["type"]

    lines = (PROVISIONING / "datasources" / "headroom.yaml").read_text().splitlines()
    text = "\n".join(line.split("#")[0] for line in lines)  # comments dropped
    environment = services()["grafana"]["environment"]
    used = set(re.findall(r"\$\{?([A-Z][A-Z0-9_]*)", text))
    assert used == {"POSTGRES_DB", "GRAFANA_DB_PASSWORD"}
    assert used <= set(environment)


def test_the_reader_service_creates_the_login_the_data_source_uses():
    reader = services()["grafana-reader"]
    assert reader["profiles"] == ["grafana"]
    assert reader["image"] == services()["db"]["image"]  # its psql matches the server
    assert reader["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert mounts(reader) == {"/reader.sql": "./grafana/reader.sql"}
    assert '-v password="$$GRAFANA_DB_PASSWORD" -f /reader.sql' in reader["command"][0]
    assert (
        reader["environment"]["GRAFANA_DB_PASSWORD"]
        == services()["grafana"]["environment"]["GRAFANA_DB_PASSWORD"]
    )

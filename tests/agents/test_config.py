"""Settings: flags beat environment beat the config file; configure checks the token and saves it safely."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from headroom_agent import config
from headroom_agent.cli import main

from tests.agents.conftest import AgentHome, Sink
from tests.ports import free_port


def test_it_uses_the_config_file_written_by_configure(agent_home: AgentHome, sink: Sink) -> None:
    sink.answer(200, {"token": "agent", "projects": [{"slug": "p", "name": "P", "campaigns": ["c1"]}]})
    assert (
        main(
            [
                "configure",
                "--server",
                sink.url + "/",
                "--token",
                "hr_abc",
                "--campaign",
                "c1",
                "--role",
                "server",
            ]
        )
        == 0
    )
    settings = config.resolve({})
    assert settings.server == sink.url
    assert settings.token == "hr_abc"
    assert settings.campaign == "c1"
    assert settings.role == "server"
    assert settings.spool_dir == agent_home.data / "spool"


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_it_keeps_the_config_file_private(agent_home: AgentHome) -> None:
    assert main(["configure", "--server", "http://localhost:1", "--token", "hr_x", "--no-check"]) == 0
    assert os.stat(agent_home.config).st_mode & 0o077 == 0


def test_environment_overrides_the_file_and_flags_override_both(
    agent_home: AgentHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    config.save_file(agent_home.config, {"server": "https://file.example", "token": "from-file"})
    monkeypatch.setenv("HEADROOM_SERVER", "https://env.example")
    monkeypatch.setenv("HEADROOM_TOKEN", "from-env")
    settings = config.resolve({})
    assert (settings.server, settings.token) == ("https://env.example", "from-env")
    assert settings.sources["token"] == "environment (HEADROOM_TOKEN)"
    settings = config.resolve({"server": "https://flag.example/api/v1/"})
    assert settings.server == "https://flag.example"


def test_it_merges_scenario_flags_over_the_stored_scenario(agent_home: AgentHome) -> None:
    config.save_file(agent_home.config, {"scenario": {"av": "on", "disk_type": "hdd"}})
    settings = config.resolve({"scenario_flags": config.parse_pairs(["disk_type=ssd", "smb_dialect=3.02"])})
    assert settings.scenario == {"av": "on", "disk_type": "ssd", "smb_dialect": "3.02"}


def test_it_explains_a_bad_scenario_pair() -> None:
    with pytest.raises(config.ConfigError, match=r"expects key=value, got 'results\.csv'"):
        config.parse_pairs(["av=on", "results.csv"])


def test_it_refuses_a_server_that_is_not_a_url() -> None:
    with pytest.raises(config.ConfigError, match="http:// or https:// URL"):
        config.normalise_server("headroom.example")


def test_it_explains_a_broken_config_file(agent_home: AgentHome) -> None:
    agent_home.config.parent.mkdir(parents=True)
    agent_home.config.write_text("{not json", encoding="utf-8")
    with pytest.raises(config.ConfigError, match="not valid JSON"):
        config.resolve({})


def test_configure_refuses_a_token_the_server_rejects(
    agent_home: AgentHome, sink: Sink, capsys: pytest.CaptureFixture[str]
) -> None:
    sink.answer(401, {"error": {"code": "unauthorized", "message": "missing or rejected credentials"}})
    assert main(["configure", "--server", sink.url, "--token", "hr_bad"]) == 1
    assert f"token rejected by {sink.url}" in capsys.readouterr().err
    assert not agent_home.config.exists()


def test_configure_saves_when_the_server_is_away(
    agent_home: AgentHome, capsys: pytest.CaptureFixture[str]
) -> None:
    server = f"http://127.0.0.1:{free_port()}"
    assert main(["configure", "--server", server, "--token", "hr_x"]) == 0
    assert "server unreachable" in capsys.readouterr().err
    assert json.loads(agent_home.config.read_text())["server"] == server


def test_show_masks_the_token_and_names_sources(
    agent_home: AgentHome, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config.save_file(agent_home.config, {"server": "https://h.example", "token": "hr_0123456789abcdefghij"})
    monkeypatch.setenv("HEADROOM_CAMPAIGN", "from-env")
    assert main(["configure", "--show"]) == 0
    out = capsys.readouterr().out
    assert "hr_0123456..." in out
    assert "abcdefghij" not in out
    assert "environment (HEADROOM_CAMPAIGN)" in out


def test_commands_need_a_server(
    agent_home: AgentHome, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["upload", str(tmp_path), "--campaign", "c"]) == 2
    assert "no server configured" in capsys.readouterr().err


@pytest.mark.skipif(sys.platform == "win32", reason="XDG layout")
def test_it_keeps_data_out_of_temporary_directories(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("HEADROOM_DATA_DIR", raising=False)
    monkeypatch.delenv("HEADROOM_CONFIG", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "conf"))
    if sys.platform != "darwin":
        assert config.data_dir() == tmp_path / "state" / "headroom"
        assert config.config_path() == tmp_path / "conf" / "headroom" / "agent.json"

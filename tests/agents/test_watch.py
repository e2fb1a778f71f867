"""Watching a results folder: each finished file uploaded once, remembered across restarts."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from headroom_agent.cli import main

from tests.agents.conftest import AgentHome, Sink


def write_aged(path: Path, text: str, age: float = 60.0) -> None:
    path.write_text(text, encoding="utf-8")
    moment = time.time() - age
    os.utime(path, (moment, moment))


def watch_once(sink: Sink, directory: Path, *extra: str) -> int:
    return main(
        ["watch", str(directory), "--server", sink.url, "--token", "t", "--campaign", "c"]
        + ["--pattern", "*.xml", "--once", "--interval", "0.1", "--settle", "1", *extra]
    )


def test_it_uploads_each_matching_file_once(agent_home: AgentHome, sink: Sink, tmp_path: Path) -> None:
    results = tmp_path / "results"
    results.mkdir()
    write_aged(results / "a.xml", "<Results/>")
    write_aged(results / "b.xml", "<Results><x/></Results>")
    write_aged(results / "notes.txt", "not mine")
    assert watch_once(sink, results) == 0
    assert len(sink.posts("/api/v1/uploads")) == 2
    assert watch_once(sink, results) == 0
    assert len(sink.posts("/api/v1/uploads")) == 2


def test_it_uploads_a_file_again_when_it_changes(agent_home: AgentHome, sink: Sink, tmp_path: Path) -> None:
    results = tmp_path / "results"
    results.mkdir()
    write_aged(results / "a.xml", "<Results/>")
    watch_once(sink, results)
    write_aged(results / "a.xml", "<Results><second/></Results>", age=30)
    watch_once(sink, results)
    assert len(sink.posts("/api/v1/uploads")) == 2


def test_it_waits_for_a_file_to_settle(agent_home: AgentHome, sink: Sink, tmp_path: Path) -> None:
    results = tmp_path / "results"
    results.mkdir()
    (results / "fresh.xml").write_text("<Results/>", encoding="utf-8")
    started = time.monotonic()
    assert watch_once(sink, results) == 0
    assert time.monotonic() - started >= 0.9
    assert len(sink.posts("/api/v1/uploads")) == 1


def test_skip_existing_ignores_what_was_there(agent_home: AgentHome, sink: Sink, tmp_path: Path) -> None:
    results = tmp_path / "results"
    results.mkdir()
    write_aged(results / "old.xml", "<Results/>")
    assert watch_once(sink, results, "--skip-existing") == 0
    assert sink.requests == []


def test_a_state_file_can_be_named(agent_home: AgentHome, sink: Sink, tmp_path: Path) -> None:
    results = tmp_path / "results"
    results.mkdir()
    write_aged(results / "a.xml", "<Results/>")
    state = tmp_path / "state.json"
    watch_once(sink, results, "--state", str(state))
    assert str((results / "a.xml").resolve()) in state.read_text(encoding="utf-8")


def test_it_refuses_a_missing_directory(
    agent_home: AgentHome, sink: Sink, capsys: pytest.CaptureFixture[str]
) -> None:
    assert watch_once(sink, Path("no-such-dir")) == 2
    assert "not a directory" in capsys.readouterr().err

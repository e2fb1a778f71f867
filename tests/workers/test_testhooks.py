"""The crash test's pause point: off without its variable; with it, holds one first attempt per arm."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from webapp.core.models import Upload
from workers import testhooks


def paused_in_thread(stage: str, upload: Upload) -> threading.Thread:
    thread = threading.Thread(target=testhooks.pause, args=(stage, upload), daemon=True)
    thread.start()
    return thread


def wait_for(path: Path) -> str:
    deadline = time.monotonic() + 30
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.01)
    return path.read_text()


def test_without_the_variable_nothing_pauses_and_no_arm_is_taken(tmp_path, monkeypatch):
    monkeypatch.delenv(testhooks.PAUSE_DIR_ENV, raising=False)
    (tmp_path / "loaded.arm").touch()
    testhooks.pause("loaded", Upload(pk=7, attempts=1))  # returns at once: this call would block otherwise
    assert sorted(p.name for p in tmp_path.iterdir()) == ["loaded.arm"]


def test_an_armed_stage_holds_the_first_attempt_that_reaches_it_until_its_file_is_deleted(
    tmp_path, monkeypatch
):
    monkeypatch.setenv(testhooks.PAUSE_DIR_ENV, str(tmp_path))
    (tmp_path / "loaded.arm").touch()
    thread = paused_in_thread("loaded", Upload(pk=7, attempts=1))
    reached = tmp_path / "loaded.reached"
    assert wait_for(reached) == f"7 {os.getpid()}"
    assert thread.is_alive()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["loaded.reached"]  # the arm is used up
    # One ingest per arm: the next one goes through, as does another stage and a re-run.
    testhooks.pause("loaded", Upload(pk=8, attempts=1))
    testhooks.pause("claimed", Upload(pk=8, attempts=1))
    reached.unlink()
    thread.join(timeout=30)
    assert not thread.is_alive()


def test_a_re_run_is_never_held(tmp_path, monkeypatch):
    monkeypatch.setenv(testhooks.PAUSE_DIR_ENV, str(tmp_path))
    (tmp_path / "claimed.arm").touch()
    testhooks.pause("claimed", Upload(pk=7, attempts=2))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["claimed.arm"]

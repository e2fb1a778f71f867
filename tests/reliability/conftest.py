"""Fixtures of the reliability tests: the processes a test starts, always stopped."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.reliability.services import Stack


@pytest.fixture
def stack(request: pytest.FixtureRequest, settings) -> Iterator[Stack]:
    callspec = getattr(request.node, "callspec", None)
    name = request.node.originalname[:60] + (f"-{callspec.id}" if callspec else "")
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", name)
    processes = Stack(name, Path(settings.VAR_DIR).resolve())
    try:
        yield processes
    finally:
        processes.close()

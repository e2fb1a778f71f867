"""Fixtures of the reliability tests: the processes a test starts, always stopped."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.reliability.services import Stack


@pytest.fixture
def stack(request: pytest.FixtureRequest, settings) -> Iterator[Stack]:
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", request.node.name)[:80]
    processes = Stack(name, Path(settings.VAR_DIR).resolve())
    try:
        yield processes
    finally:
        processes.close()

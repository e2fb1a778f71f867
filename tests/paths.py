"""Where the tests find the shared real-world fixture files.

CI clones the project with ``shared/`` beside it; ``HEADROOM_SHARED`` points
elsewhere when a checkout lives somewhere else.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("HEADROOM_SHARED", REPO.parent / "shared"))
FIXTURES = SHARED / "fixtures" / "real"


def real_fixture(relpath: str) -> Path:
    """The real fixture at ``relpath`` under ``FIXTURES``; skips the calling test when this
    checkout's shared folder lacks it (files added after a CI machine fetched ``shared/``)."""
    path = FIXTURES / relpath
    if not path.is_file():
        pytest.skip(f"real fixture {relpath} is absent from {FIXTURES} (see its MANIFEST.tsv for the source)")
    return path

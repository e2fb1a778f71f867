"""Test-only: a pause point that lets the crash test kill a worker at a known moment of an ingest.

Off unless ``HEADROOM_TEST_PAUSE_DIR`` is set, and nothing but the crash test
(``tests/reliability/test_worker_crash.py``) sets it: without it ``pause`` returns
at once and touches nothing. Never set it in production.

With it set, the test arms a stage by creating ``<dir>/<stage>.arm``. The first
ingest to reach ``pause(stage, upload)`` on the upload's first attempt takes the
arm (a rename, so one ingest per arm), writes ``<upload id> <pid>`` to
``<dir>/<stage>.reached`` and waits while that file exists. The test waits for
the file, kills the process, then deletes it. A re-run (attempt 2 and later)
never pauses, so the upload a kill interrupted always gets through afterwards.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from webapp.core.models import Upload

log = logging.getLogger(__name__)

PAUSE_DIR_ENV = "HEADROOM_TEST_PAUSE_DIR"
# claimed: the claim is made and its lock held, nothing read yet.
# copying: a perfmon trace's samples are all sent, its COPY not yet ended.
# loaded: every row is COPY'd and the upload marked stored, in the load's still open transaction.
STAGES = ("claimed", "copying", "loaded")
# A test that forgot its file does not hang a worker for ever.
MAX_PAUSE_SECONDS = 300.0


def pause(stage: str, upload: Upload) -> None:
    """Wait here while the crash test holds this ingest (test-only; see the module docstring)."""
    directory = os.environ.get(PAUSE_DIR_ENV)
    if not directory or upload.attempts != 1:
        return
    folder = Path(directory)
    taken = folder / f"{stage}.{os.getpid()}"
    try:
        (folder / f"{stage}.arm").rename(taken)
    except FileNotFoundError:
        return  # not armed, or another ingest took the arm
    taken.write_text(f"{upload.pk} {os.getpid()}")
    reached = taken.rename(folder / f"{stage}.reached")
    log.warning("test pause: upload %s held at %r", upload.pk, stage)
    deadline = time.monotonic() + MAX_PAUSE_SECONDS
    while reached.exists() and time.monotonic() < deadline:
        time.sleep(0.02)

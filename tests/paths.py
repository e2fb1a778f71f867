"""Where the tests find the shared real-world fixture files.

CI clones the project with ``shared/`` beside it; ``HEADROOM_SHARED`` points
elsewhere when a checkout lives somewhere else.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("HEADROOM_SHARED", REPO.parent / "shared"))
FIXTURES = SHARED / "fixtures" / "real"

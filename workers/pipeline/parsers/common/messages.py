"""How an error message shows the value it refuses."""

from __future__ import annotations

import json
from typing import Any


def show(value: Any) -> str:
    """A short rendering of a bad value for an error message: JSON, cut to 60 characters."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."

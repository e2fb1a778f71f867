"""Keep secrets that travel in URLs out of the logs.

A share link's token is its only credential and it is part of the path
(``/s/hs_...``), so every access log line and Django's "Not Found"/"Gone"
warnings would otherwise carry it. Tokens are cut to the hint the links page
shows (``hs_`` and five characters), which is enough to tell links apart.
This module imports nothing from Django: gunicorn loads it before Django is
set up.
"""

from __future__ import annotations

import logging
import re

# hs_ + token_urlsafe(24) (webapp/sharing/models.py); 16+ characters so ordinary words stay.
_TOKEN = re.compile(r"\b(hs_[A-Za-z0-9_-]{5})[A-Za-z0-9_-]{11,}")


def redact(text: str) -> str:
    """``text`` with every share-link token cut to its hint and ``…``."""
    return _TOKEN.sub(r"\1…", text)


class ShareTokenFilter(logging.Filter):
    """Rewrites a record's message with its tokens redacted; never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True

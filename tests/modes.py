"""Which time-series mode this test run must have built, worked out independently of the build.

CI runs the whole suite twice: on plain PostgreSQL and on TimescaleDB with
``HEADROOM_TIMESCALE=on``. A test about one mode asks ``expected_mode()`` and
asserts that mode's behaviour, so neither run skips it and neither hard-codes it.
"""

from __future__ import annotations

from django.conf import settings

from webapp.timeseries import backend


def expected_mode() -> backend.Mode:
    """What the setting and the server say migrations should have built (not what they did)."""
    if settings.TIMESCALE == "off":
        return "postgresql"
    if settings.TIMESCALE == "on":
        return "timescaledb"
    return "timescaledb" if backend.server_support().usable else "postgresql"


def on_timescale() -> bool:
    return expected_mode() == "timescaledb"

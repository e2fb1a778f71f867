"""Shared by the demo generator tests: the generated campaign, and decoding its files."""

from __future__ import annotations

import io

from webapp.demo.generate import demo_campaign
from workers.pipeline.decode import Decoded, decode

CAMPAIGN = demo_campaign()


def _decoded(content: bytes) -> Decoded:
    return decode(lambda: io.BytesIO(content))

"""The floor for ``bench/api.py``: a WSGI app that reads the upload and answers 202, nothing else.

Served by the same gunicorn command line and sent the same burst, it shows
what the machine, gunicorn and the load generator cost on their own; the
benchmark prints Headroom's latencies as ratios against it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any


def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    environ["wsgi.input"].read()
    body = b'{"id": 0, "status": "received"}'
    start_response("202 Accepted", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return [body]

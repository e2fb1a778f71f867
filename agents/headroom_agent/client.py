"""Talking to the Headroom API with the standard library (``urllib``).

One ``Client`` sends a request and returns a ``Response`` whatever the HTTP
status; only a failure to get an answer at all (refused, DNS, timeout, TLS)
raises ``TransportError``. ``verdict`` decides, in one place, what a status
means for a spooled request: delivered, retry later, fix the token, or
rejected for good. Redirects are not followed: a POST silently turned into a
GET would lose data, so a redirect is reported with the URL to configure.
"""

from __future__ import annotations

import enum
import http.client
import json
import platform
import socket
import ssl
import sys
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import IO, Any, Optional, Union

from headroom_agent import __version__

USER_AGENT = f"headroom-agent/{__version__} (Python {platform.python_version()}; {sys.platform})"
CHUNK = 64 * 1024


class TransportError(Exception):
    """No HTTP answer: the server is unreachable, timed out, or TLS failed."""


class Verdict(enum.Enum):
    """What an answer means for the request that produced it."""

    DELIVERED = "delivered"  # 2xx: the server has it
    RETRY = "retry"  # unreachable, 408/425/429, 5xx: try again later, unchanged
    AUTH = "auth"  # 401/403: keep it; the token must be fixed first
    REJECTED = "rejected"  # other 4xx, 3xx: the request itself is wrong; retrying cannot help


def verdict(status: int) -> Verdict:
    """Classify an HTTP status for the spool."""
    if 200 <= status < 300:
        return Verdict.DELIVERED
    if status in (401, 403):
        return Verdict.AUTH
    if status in (408, 425, 429) or status >= 500:
        return Verdict.RETRY
    return Verdict.REJECTED


@dataclass
class Response:
    """An HTTP answer: status, headers and the whole (small) body."""

    status: int
    body: bytes
    headers: Mapping[str, str] = field(default_factory=dict)

    def json(self) -> Any:
        """The body as JSON, or None if it is not JSON."""
        try:
            return json.loads(self.body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return None

    def error_message(self) -> str:
        """The server's ``{"error": {"message"}}`` verbatim, else a short form of the body."""
        value = self.json()
        if isinstance(value, dict) and isinstance(value.get("error"), dict):
            message = value["error"].get("message")
            if message:
                return str(message)
        text = self.body.decode("utf-8", "replace").strip()
        if 300 <= self.status < 400:
            location = self.headers.get("Location", "")
            return f"redirected to {location or '(no location)'}; configure --server with the final URL"
        if not text or text.lstrip().startswith("<"):
            return f"HTTP {self.status} (not an answer from the Headroom API; is the server URL right?)"
        return text if len(text) <= 300 else text[:297] + "..."


class FileBody:
    """A request body streamed from an open file in chunks, reporting progress."""

    def __init__(self, handle: IO[bytes], size: int, on_chunk: Callable[[int], None] | None = None) -> None:
        self.handle = handle
        self.size = size
        self.on_chunk = on_chunk

    def __iter__(self) -> Iterator[bytes]:
        remaining = self.size
        while remaining > 0:
            data = self.handle.read(min(CHUNK, remaining))
            if not data:
                raise OSError(f"the spooled request ended {remaining} bytes early")
            remaining -= len(data)
            if self.on_chunk is not None:
                self.on_chunk(len(data))
            yield data


Body = Optional[Union[bytes, FileBody]]


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class Client:
    """Requests to one Headroom server with one agent token."""

    def __init__(self, server: str, token: str, timeout: float = 60.0) -> None:
        self.server = server.rstrip("/")
        self.token = token
        self.timeout = timeout
        self._opener = urllib.request.build_opener(_NoRedirect())

    def url(self, path: str) -> str:
        return self.server + path

    def request(
        self, method: str, path: str, body: Body = None, headers: Mapping[str, str] | None = None
    ) -> Response:
        """Send one request; a Response for any status, TransportError if there is no answer."""
        all_headers = {"User-Agent": USER_AGENT, "Accept": "application/json", **(headers or {})}
        if self.token:
            all_headers["Authorization"] = f"Bearer {self.token}"
        if isinstance(body, FileBody):
            all_headers["Content-Length"] = str(body.size)
        data: Any = body
        request = urllib.request.Request(self.url(path), data=data, headers=all_headers, method=method)
        try:
            with self._opener.open(request, timeout=self.timeout) as answer:
                return Response(answer.status, answer.read(), dict(answer.headers.items()))
        except urllib.error.HTTPError as exc:
            try:
                content = exc.read()
            except OSError:
                content = b""
            return Response(exc.code, content, dict(exc.headers.items()) if exc.headers else {})
        except urllib.error.URLError as exc:
            raise TransportError(describe_reason(exc.reason)) from None
        except (OSError, http.client.HTTPException) as exc:
            raise TransportError(describe_reason(exc)) from None

    def get_json(self, path: str) -> Response:
        return self.request("GET", path)

    def post_json(self, path: str, value: Any) -> Response:
        body = json.dumps(value, separators=(",", ":")).encode("utf-8")
        return self.request("POST", path, body, {"Content-Type": "application/json"})


def describe_reason(reason: object) -> str:
    """A short human reason for a failed connection."""
    if isinstance(reason, socket.timeout):
        return "timed out"
    if isinstance(reason, ssl.SSLCertVerificationError):
        return f"TLS certificate check failed: {reason.verify_message}"
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused"
    if isinstance(reason, socket.gaierror):
        return f"host name not found ({reason.strerror})"
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror
    return str(reason) or type(reason).__name__

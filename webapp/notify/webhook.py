"""Posting a webhook without letting its URL reach where it must not (SSRF).

Only ``http``/``https`` URLs without user info are accepted. The host name is
resolved once per attempt and every address it resolves to must be global
(not loopback, private, link-local, CGNAT, multicast or reserved) unless
``HEADROOM_WEBHOOK_ALLOW_PRIVATE`` is on; the connection then goes to the
address that was checked (the name is not resolved again, so DNS rebinding
cannot swap it), with the name kept for ``Host`` and TLS. Redirects are
never followed: a 3xx is a failed delivery.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

USER_AGENT = "Headroom-Webhook/1"
# A receiver's answer is not used; a bounded read lets the connection close cleanly.
MAX_RESPONSE_BYTES = 64 * 1024


class RefusedTarget(ValueError):
    """The URL may not be called; the message says why."""


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str
    port: int
    path: str


def parse(url: str) -> Target:
    """The URL's parts if its form is acceptable; RefusedTarget otherwise (no DNS here)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise RefusedTarget(f"not a URL: {exc}") from None
    if parts.scheme not in ("http", "https"):
        raise RefusedTarget("the webhook URL must start with https:// or http://")
    if not parts.hostname:
        raise RefusedTarget("the webhook URL has no host")
    if parts.username is not None or parts.password is not None:
        raise RefusedTarget(
            "the webhook URL must not hold a user name or password; the signature authenticates"
        )
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80), path)


def allowed_address(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def check(url: str) -> Target:
    """``parse``, and a literal address in the URL must be allowed: for the settings form."""
    target = parse(url)
    try:
        literal = ipaddress.ip_address(target.host)
    except ValueError:
        return target
    if not settings.WEBHOOK_ALLOW_PRIVATE and not allowed_address(str(literal)):
        raise RefusedTarget(f"{target.host} is not a public address; webhooks go to public addresses only")
    return target


def resolve(target: Target) -> str:
    """The address to connect to: the first the name resolves to, once every one is allowed."""
    try:
        found = socket.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise ConnectionError(f"cannot resolve {target.host}: {exc.strerror}") from None
    addresses = [str(info[4][0]) for info in found]
    if not addresses:
        raise ConnectionError(f"{target.host} resolves to no address")
    if not settings.WEBHOOK_ALLOW_PRIVATE:
        refused = [a for a in addresses if not allowed_address(a)]
        if refused:
            raise RefusedTarget(
                f"{target.host} resolves to {refused[0]}, not a public address; "
                "webhooks go to public addresses only"
            )
    return addresses[0]


class _PinnedHTTP(http.client.HTTPConnection):
    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self.address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self.address, self.port), self.timeout)


class _PinnedHTTPS(http.client.HTTPSConnection):
    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self.address = address

    def connect(self) -> None:
        sock = socket.create_connection((self.address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)  # type: ignore[attr-defined]


def post(url: str, body: bytes, headers: dict[str, str]) -> int:
    """POST ``body``; the response's status code. RefusedTarget, or OSError on a network failure."""
    target = check(url)
    address = resolve(target)
    kind = _PinnedHTTPS if target.scheme == "https" else _PinnedHTTP
    connection = kind(target.host, target.port, address, settings.WEBHOOK_TIMEOUT)
    try:
        connection.request(
            "POST",
            target.path,
            body=body,
            headers={"Content-Type": "application/json", "User-Agent": USER_AGENT, **headers},
        )
        response = connection.getresponse()
        response.read(MAX_RESPONSE_BYTES)
        return response.status
    except http.client.HTTPException as exc:
        raise ConnectionError(f"bad HTTP answer: {type(exc).__name__}: {exc}") from None
    finally:
        connection.close()

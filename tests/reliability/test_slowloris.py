"""Slowloris: nginx in front of gunicorn keeps slow clients away from the sync workers (issue 14, finding 5).

Two connections that send a request header line at a time hold both sync
gunicorn workers for as long as they keep dripping; a normal request waits
behind them. Through nginx running docker/nginx.conf (the compose `proxy`
service), the same two connections occupy only nginx, which hands gunicorn
complete requests, and the normal request answers at once.
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import threading
import time
from collections.abc import Iterator

import pytest
from django.conf import settings

from tests.conftest import database_url
from tests.docker.nginx import require_nginx, running_nginx
from tests.reliability.services import Stack

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

# Between two header lines of the slow clients (the review used 5 s; shorter keeps the test short).
DRIP_SECONDS = 1.0
NORMAL_TIMEOUT = 8.0


@contextlib.contextmanager
def slow_clients(port: int, count: int = 2) -> Iterator[list[socket.socket]]:
    """``count`` connections that start a request and send one more header line every DRIP_SECONDS."""
    stop = threading.Event()
    sockets = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(count)]
    for sock in sockets:
        sock.sendall(b"GET /api/v1/openapi.json HTTP/1.1\r\nHost: localhost\r\n")

    def drip() -> None:
        n = 0
        while not stop.wait(DRIP_SECONDS):
            n += 1
            for sock in sockets:
                with contextlib.suppress(OSError):
                    sock.sendall(f"X-Slow-{n}: {'a' * 10}\r\n".encode())

    thread = threading.Thread(target=drip, daemon=True)
    thread.start()
    time.sleep(1.5)  # both connections are accepted and mid-header
    try:
        yield sockets
    finally:
        stop.set()
        thread.join(timeout=5)
        for sock in sockets:
            sock.close()


def normal_request(port: int) -> tuple[int | None, float]:
    """(status or None on timeout, seconds) of one ordinary GET."""
    began = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=NORMAL_TIMEOUT)
    try:
        conn.request("GET", "/api/v1/openapi.json", headers={"Host": "localhost"})
        response = conn.getresponse()
        response.read()
        return response.status, time.monotonic() - began
    except TimeoutError:
        return None, time.monotonic() - began
    finally:
        conn.close()


def test_slow_clients_no_longer_delay_a_normal_request_behind_the_proxy(stack: Stack, tmp_path):
    require_nginx()
    web = stack.gunicorn(stack.env(database_url(), settings.CELERY_BROKER_URL), workers=2)
    assert normal_request(web.port)[0] == 200

    with running_nginx(tmp_path, web.base) as proxy_port:
        assert normal_request(proxy_port)[0] == 200
        with slow_clients(proxy_port):
            proxied_status, proxied_seconds = normal_request(proxy_port)

    with slow_clients(web.port):
        direct_status, direct_seconds = normal_request(web.port)

    print(
        f"normal request while 2 slow clients drip headers: through nginx {proxied_status} in "
        f"{proxied_seconds:.2f} s; straight to gunicorn {direct_status or 'no answer'} after {direct_seconds:.2f} s"
    )
    assert proxied_status == 200 and proxied_seconds < 3.0
    # Straight to gunicorn the same attack holds both workers (loosely: the
    # request waits for seconds, or gets no answer before the timeout).
    assert direct_status is None or direct_seconds > 2.0

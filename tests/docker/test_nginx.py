"""docker/nginx.conf (the compose `proxy` service): valid for nginx, buffering, and the only published port.

The slowloris proof itself, nginx in front of a real gunicorn, is
tests/reliability/test_slowloris.py.
"""

from __future__ import annotations

import http.client
import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import yaml

from tests.docker.nginx import NGINX_CONF, access_log, nginx_test, running_nginx
from tests.paths import REPO
from webapp.env import env_size


def directive(name: str) -> list[str]:
    """Every value of ``name`` in docker/nginx.conf."""
    return re.findall(rf"^\s*{name}\s+([^;]+);", NGINX_CONF.read_text(), flags=re.MULTILINE)


def test_nginx_accepts_the_proxy_config(tmp_path):
    result = nginx_test(tmp_path)
    assert result.returncode == 0, result.stderr
    assert "syntax is ok" in result.stderr and "test is successful" in result.stderr


def test_nginx_rejects_a_broken_copy_so_the_check_means_something(tmp_path):
    assert nginx_test(tmp_path).returncode == 0
    conf = tmp_path / "nginx.conf"
    conf.write_text(conf.read_text().replace("proxy_request_buffering on;", "proxy_request_buffering maybe;"))
    result = nginx_test(tmp_path, conf)
    assert result.returncode != 0 and "proxy_request_buffering" in result.stderr


def test_it_buffers_whole_requests_and_drops_slow_clients():
    assert directive("proxy_request_buffering") == ["on"]
    assert directive("client_header_timeout") == ["10s"]
    assert directive("client_body_timeout") == ["30s"]
    forwarded = dict(value.split(None, 1) for value in directive("proxy_set_header"))
    assert forwarded["X-Forwarded-For"] == "$proxy_add_x_forwarded_for"
    assert forwarded["X-Forwarded-Proto"] == "$scheme"
    assert forwarded["X-Real-IP"] == "$remote_addr"


def test_it_accepts_bodies_up_to_the_default_upload_limit():
    from django.conf import settings

    (size,) = directive("client_max_body_size")
    assert env_size("limit", 0, {"limit": size}) == 1024**3 == settings.MAX_UPLOAD_SIZE


def test_compose_publishes_only_the_proxy_with_a_pinned_nginx_and_a_health_check():
    services = yaml.safe_load((REPO / "docker" / "compose.yaml").read_text())["services"]
    published = {
        name for name, service in services.items() if service.get("ports") and not service.get("profiles")
    }
    assert published == {"proxy"}
    # An opt-in profile's service (Grafana) may publish, on the loopback address only.
    opt_in = {name: service.get("ports") for name, service in services.items() if service.get("profiles")}
    assert all(str(port).startswith("127.0.0.1:") for ports in opt_in.values() for port in ports or []), (
        opt_in
    )
    proxy = services["proxy"]
    assert re.fullmatch(r"nginx:\d+\.\d+\.\d+-alpine", proxy["image"])
    assert "./nginx.conf:/etc/nginx/nginx.conf:ro" in proxy["volumes"]
    assert proxy["ports"] == ["8000:8080"] and "listen 8080" in NGINX_CONF.read_text()
    assert "/proxy-healthz" in " ".join(proxy["healthcheck"]["test"])
    assert proxy["depends_on"]["web"]["condition"] == "service_started"


class Echo(BaseHTTPRequestHandler):
    """An upstream that answers with the headers and body size it received."""

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        reply = json.dumps({"headers": dict(self.headers.items()), "size": len(body), "path": self.path})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply.encode())

    do_GET = do_POST = _answer

    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.fixture
def proxied(tmp_path) -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with running_nginx(tmp_path, f"127.0.0.1:{server.server_address[1]}") as port:
            yield port
    finally:
        server.shutdown()
        server.server_close()


def request(port: int, method: str, path: str, headers: dict[str, str], body: bytes | None = None) -> Any:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, response.getheader("Content-Type"), response.read()
    finally:
        conn.close()


def test_the_proxy_replaces_forwarded_headers_a_client_forges(proxied, tmp_path):
    forged = {"X-Forwarded-Proto": "https", "X-Real-IP": "203.0.113.9", "Host": "headroom.example"}
    status, _, body = request(proxied, "POST", "/api/v1/timings", forged, b"x" * 3_000_000)
    assert status == 200
    seen = json.loads(body)
    assert seen["size"] == 3_000_000  # spooled to disk, then handed over whole
    headers = {k.lower(): v for k, v in seen["headers"].items()}
    assert headers["x-forwarded-proto"] == "http"  # the scheme nginx spoke, not the client's claim
    assert headers["x-real-ip"] == "127.0.0.1"
    assert headers["x-forwarded-for"] == "127.0.0.1"
    assert headers["host"] == "headroom.example"


def test_the_proxy_answers_its_own_health_check_and_keeps_share_tokens_out_of_its_log(proxied, tmp_path):
    status, _, body = request(proxied, "GET", "/proxy-healthz", {})
    assert (status, body) == (200, b"ok\n")
    status, _, _ = request(proxied, "GET", "/s/hs_secret-share-token/?x=1", {})
    assert status == 200
    log = access_log(tmp_path, "/s/[redacted]/?x=1")
    assert "/s/[redacted]/?x=1" in log and "hs_secret-share-token" not in log


def test_the_proxy_refuses_an_oversized_body_with_a_json_error(proxied):
    # Content-Length alone is enough for nginx to refuse; nothing is sent.
    conn = http.client.HTTPConnection("127.0.0.1", proxied, timeout=30)
    try:
        conn.putrequest("POST", "/api/v1/uploads")
        conn.putheader("Content-Length", str(2 * 1024**3))
        conn.endheaders()
        response = conn.getresponse()
        status, kind, body = response.status, response.getheader("Content-Type"), response.read()
    finally:
        conn.close()
    assert status == 413 and kind == "application/json"
    assert json.loads(body)["error"]["code"] == "too_large"

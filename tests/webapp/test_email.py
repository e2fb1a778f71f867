"""Password-reset mail goes out through the SMTP server the environment names."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest

from tests.paths import REPO


class TinySmtpServer:
    """Just enough of RFC 5321 to receive one message, on a real socket."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.messages: list[dict[str, str]] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn, conn.makefile("rb") as rfile:
                self._session(conn, rfile)

    def _session(self, conn: socket.socket, rfile) -> None:
        conn.sendall(b"220 tiny ESMTP\r\n")
        message: dict[str, str] = {"rcpt": ""}
        while line := rfile.readline():
            verb = line.decode().strip().split(" ", 1)[0].upper()
            if verb in ("EHLO", "HELO"):
                conn.sendall(b"250 tiny\r\n")
            elif verb == "MAIL":
                message["from"] = line.decode().strip()
                conn.sendall(b"250 ok\r\n")
            elif verb == "RCPT":
                message["rcpt"] += line.decode().strip() + "\n"
                conn.sendall(b"250 ok\r\n")
            elif verb == "DATA":
                conn.sendall(b"354 go on\r\n")
                body = []
                while (data := rfile.readline()) not in (b".\r\n", b""):
                    body.append(data.decode())
                message["data"] = "".join(body)
                self.messages.append(message)
                message = {"rcpt": ""}
                conn.sendall(b"250 queued\r\n")
            elif verb == "QUIT":
                conn.sendall(b"221 bye\r\n")
                return
            else:
                conn.sendall(b"250 ok\r\n")

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def smtp_server() -> Iterator[TinySmtpServer]:
    server = TinySmtpServer()
    yield server
    server.close()


SCRIPT = """
import json, django
django.setup()
from django.conf import settings
from django.core.mail import send_mail
send_mail("Reset", "Follow the link.", None, ["someone@example.com"])
print(json.dumps({k: getattr(settings, k) for k in (
    "EMAIL_HOST", "EMAIL_PORT", "EMAIL_HOST_USER", "EMAIL_HOST_PASSWORD", "EMAIL_USE_TLS", "EMAIL_USE_SSL",
    "EMAIL_TIMEOUT", "DEFAULT_FROM_EMAIL")}))
"""


def run_settings(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=REPO,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "webapp.settings", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_it_sends_mail_through_the_smtp_server_the_environment_names(smtp_server, tmp_path):
    password = tmp_path / "smtp-password"
    password.write_text("from-a-file\n")
    result = run_settings(
        {
            "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "EMAIL_HOST": "127.0.0.1",
            "EMAIL_PORT": str(smtp_server.port),
            "EMAIL_HOST_PASSWORD_FILE": str(password),
            "EMAIL_TIMEOUT": "5",
            "DEFAULT_FROM_EMAIL": "headroom@lab.example",
        }
    )
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["EMAIL_HOST_PASSWORD"] == "from-a-file" and seen["EMAIL_PORT"] == smtp_server.port
    assert seen["EMAIL_USE_TLS"] is False and seen["EMAIL_TIMEOUT"] == 5
    [message] = smtp_server.messages
    assert "someone@example.com" in message["rcpt"] and "headroom@lab.example" in message["from"]
    assert "Follow the link." in message["data"]


def test_it_refuses_tls_and_ssl_together():
    result = run_settings({"EMAIL_USE_TLS": "1", "EMAIL_USE_SSL": "1"})
    assert result.returncode != 0
    assert "EMAIL_USE_TLS and EMAIL_USE_SSL" in result.stderr

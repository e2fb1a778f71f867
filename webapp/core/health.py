"""``GET /healthz``: database, time-series mode, broker and worker heartbeat.

200 only when every check passes, 503 otherwise; the body says which failed.
Each check is bounded by a short timeout so a dead dependency cannot hang the
health endpoint (Docker's HEALTHCHECK and load balancers call it).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Max
from django.http import HttpRequest, JsonResponse
from django.utils import timezone


def check_database() -> dict[str, Any]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:
        connection.close()
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}".strip()[:300]}
    return {"ok": True}


def check_timescale() -> dict[str, Any]:
    from webapp.timeseries import backend

    try:
        return {"ok": True, "mode": backend.mode()}
    except Exception as exc:
        return {"ok": False, "mode": "unknown", "error": str(exc)[:300]}


def check_broker() -> dict[str, Any]:
    from workers.celery import app

    url = settings.CELERY_BROKER_URL
    transport = url.split("://", 1)[0]
    try:
        with app.connection_for_write(url) as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
    except Exception as exc:
        return {"ok": False, "transport": transport, "error": f"{type(exc).__name__}: {exc}"[:300]}
    return {"ok": True, "transport": transport}


def check_workers() -> dict[str, Any]:
    from webapp.core.models import WorkerHeartbeat

    try:
        stale = timezone.now() - timedelta(seconds=settings.WORKER_STALE_SECONDS)
        alive = WorkerHeartbeat.objects.filter(seen_at__gte=stale).count()
        last = WorkerHeartbeat.objects.aggregate(last=Max("seen_at"))["last"]
    except Exception as exc:
        connection.close()
        return {"ok": False, "alive": 0, "error": f"{type(exc).__name__}"}
    return {
        "ok": alive > 0,
        "alive": alive,
        "last_heartbeat": last.isoformat() if last else None,
        **({} if alive else {"error": f"no worker heartbeat in the last {settings.WORKER_STALE_SECONDS} s"}),
    }


def healthz(request: HttpRequest) -> JsonResponse:
    database = check_database()
    checks = {
        "database": database,
        "timescale": check_timescale() if database["ok"] else {"ok": False, "mode": "unknown"},
        "broker": check_broker(),
        "workers": check_workers() if database["ok"] else {"ok": False, "alive": 0},
    }
    ok = all(check["ok"] for check in checks.values())
    body = {
        "status": "ok" if ok else "unavailable",
        "mode": checks["timescale"].get("mode"),
        "checks": checks,
    }
    return JsonResponse(body, status=200 if ok else 503)

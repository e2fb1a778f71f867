"""``GET /healthz``: database, time-series mode, broker and worker heartbeat.

200 only when every check passes, 503 otherwise; the body says which failed.
Each check is bounded by a short timeout so a dead dependency cannot hang the
health endpoint (Docker's HEALTHCHECK and load balancers call it).

Anyone may call it, so an anonymous caller gets only ``ok`` per check plus the
time-series ``mode`` and its ``note`` (how the tables were built, not a
secret). Connection errors name hosts, ports and roles: those details, the
broker transport and the worker heartbeat go only to a caller sending the
metrics token (``Authorization: Bearer <HEADROOM_METRICS_TOKEN>``) or to a
signed-in staff user.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Max
from django.http import HttpRequest, JsonResponse
from django.utils import timezone

from webapp.ops.views import _authorised as bearer_matches

# What an anonymous caller sees of each check besides ``ok``.
PUBLIC_FIELDS = {"timescale": ("mode", "note")}


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
        built = backend.mode()
        note = backend.mode_note(built)
        return {"ok": True, "mode": built, **({"note": note} if note else {})}
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
    if not _may_see_details(request):
        checks = {
            name: {k: v for k, v in check.items() if k == "ok" or k in PUBLIC_FIELDS.get(name, ())}
            for name, check in checks.items()
        }
    body = {
        "status": "ok" if ok else "unavailable",
        "mode": checks["timescale"].get("mode"),
        "checks": checks,
    }
    return JsonResponse(body, status=200 if ok else 503)


def _may_see_details(request: HttpRequest) -> bool:
    token: str = settings.METRICS_TOKEN
    if token and bearer_matches(request, token):
        return True
    user = getattr(request, "user", None)
    return bool(user is not None and user.is_active and user.is_staff)

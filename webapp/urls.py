"""URL map: API under /api/v1/, health at /healthz, Prometheus at /metrics, dashboard at /, admin for staff."""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from webapp.api.router import api
from webapp.core.health import healthz
from webapp.ops.views import metrics

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("metrics", metrics, name="metrics"),
    path("api/v1/", api.urls),
    path("admin/", admin.site.urls),
    path("accounts/", include("webapp.accounts.urls")),
    path("", include("webapp.sharing.urls")),
    path("", include("webapp.dashboard.urls")),
]

"""URL map: API under /api/v1/, health at /healthz, Prometheus at /metrics, dashboard at /, admin for staff."""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from webapp.api.router import api
from webapp.ops.health import healthz
from webapp.ops.views import metrics

# JSON for API paths that no route matches or that fail outside the API's own views.
handler404 = "webapp.api.errors.api_aware_404"
handler500 = "webapp.api.errors.api_aware_500"

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("metrics", metrics, name="metrics"),
    path("api/v1/", api.urls),
    path("admin/", admin.site.urls),
    path("accounts/", include("webapp.accounts.urls")),
    path("accounts/projects/<slug:slug>/notifications/", include("webapp.notify.urls")),
    path("", include("webapp.sharing.urls")),
    path("", include("webapp.dashboard.urls")),
]

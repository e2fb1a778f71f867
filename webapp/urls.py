"""URL map: API under /api/v1/, health at /healthz, dashboard at /, admin for staff."""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from webapp.api.router import api
from webapp.core.health import healthz

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("api/v1/", api.urls),
    path("admin/", admin.site.urls),
    path("", include("webapp.dashboard.urls")),
]

"""Under /accounts/projects/<slug>/notifications/ (owners)."""

from __future__ import annotations

from django.urls import path

from webapp.notify import views

app_name = "notify"
urlpatterns = [
    path("", views.settings_page, name="notifications"),
    path("save", views.save, name="save-notifications"),
    path("rotate", views.rotate, name="rotate-secret"),
    path("test", views.test, name="test-notification"),
    path("subscriptions", views.subscriptions, name="subscriptions"),
]

from __future__ import annotations

from django.apps import AppConfig


class NotifyConfig(AppConfig):
    name = "webapp.notify"
    label = "notify"

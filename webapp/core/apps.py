from __future__ import annotations

from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "webapp.core"
    label = "core"
    verbose_name = "Headroom"

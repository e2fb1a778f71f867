from __future__ import annotations

from django.apps import AppConfig


class SharingConfig(AppConfig):
    name = "webapp.sharing"
    label = "sharing"

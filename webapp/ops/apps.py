from __future__ import annotations

from django.apps import AppConfig


class OpsConfig(AppConfig):
    """Operating Headroom: health, metrics, campaign archives, and the Celery app's wiring."""

    name = "webapp.ops"
    label = "ops"
    verbose_name = "Operations"

    def ready(self) -> None:
        # The Celery app, configured from these settings, in every Django
        # process: webapp.core sends tasks by name (``webapp.core.uploads.enqueue``)
        # through ``celery.current_app`` and never imports the workers.
        import workers.celery  # noqa: F401

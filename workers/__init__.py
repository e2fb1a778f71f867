"""Celery workers: the app, its tasks, and the ingest pipeline they run."""

from workers.celery import app

__all__ = ["app"]

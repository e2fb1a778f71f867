"""Notification tests: the three-campaign series of the history tests, a real receiver, tasks in-process.

``eager`` runs the tasks a stored upload sends in this process, as a worker
would run them, in order (the recomputation, then each delivery and its
retries); the broker, the pending mark (Redis) and the database are real.
Retry delays are 0 so the five attempts happen within the test.
"""

from __future__ import annotations

import pytest

from tests.factories import make_campaign
from tests.webapp.api.test_series_history import study
from webapp.notify.models import NotifySettings
from webapp.notify.signing import new_secret


@pytest.fixture(autouse=True)
def _notify_settings(settings):
    settings.WEBHOOK_ALLOW_PRIVATE = True  # the receiver listens on 127.0.0.1
    settings.WEBHOOK_RETRY_DELAYS = [0, 0, 0, 0]
    settings.NOTIFY_DELAY_SECONDS = 0
    settings.PUBLIC_URL = "https://headroom.example.com"


@pytest.fixture
def eager():
    from workers.celery import app

    # Not task_eager_propagates: it would raise a task's Retry out of apply_async
    # instead of running the retry; the tests check the outcome in the database.
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False


@pytest.fixture
def series_project(db):
    """patch-a, patch-b, patch-c (build 8, 9, 10): in patch-c SMB 3.02 saturates at 322.5 users, not 375."""
    project = make_campaign().project
    study(project, "patch-c", "build 10", {"2.1": 0.2, "3.02": 0.2 / 0.86})
    study(project, "patch-a", "build 8", {"2.1": 0.2, "3.02": 0.2})
    study(project, "patch-b", "build 9", {"2.1": 0.2, "3.02": 0.2})
    return project


def configure(project, url: str = "", email: bool = False) -> NotifySettings:
    """Threshold 75 % CPU: the history tests' method (375 users at 0.2 %/user)."""
    return NotifySettings.objects.create(
        project=project, webhook_url=url, secret=new_secret(), email=email, threshold=75.0
    )

from __future__ import annotations

from django.apps import AppConfig


class TimeseriesConfig(AppConfig):
    name = "webapp.timeseries"
    label = "timeseries"
    verbose_name = "Time series"

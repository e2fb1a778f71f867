"""Django admin for the series dictionary; samples are too many to browse here."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib import admin

from webapp.timeseries.models import CounterSeries

if TYPE_CHECKING:
    from django.contrib.admin import ModelAdmin
else:
    from webapp.core.admin import ModelAdmin  # subscriptable at runtime; see there


@admin.register(CounterSeries)
class CounterSeriesAdmin(ModelAdmin[CounterSeries]):
    list_display = ["counter", "object", "instance", "host"]
    list_select_related = ["host"]
    search_fields = ["object", "counter", "instance", "host__name"]
    raw_id_fields = ["host"]

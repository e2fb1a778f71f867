"""Hypertables + continuous aggregate on TimescaleDB, a rollup table otherwise.

All the SQL lives in ``webapp.timeseries.backend``; this migration only calls it.
"""

from __future__ import annotations

from django.db import migrations

from webapp.timeseries import backend


def forwards(apps, schema_editor):  # type: ignore[no-untyped-def]
    backend.install(schema_editor)


def backwards(apps, schema_editor):  # type: ignore[no-untyped-def]
    backend.uninstall(schema_editor)


class Migration(migrations.Migration):
    dependencies = [("timeseries", "0001_initial")]
    operations = [migrations.RunPython(forwards, backwards)]

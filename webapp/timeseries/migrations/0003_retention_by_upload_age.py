"""Retention moves from TimescaleDB's policy (by sample timestamp) to ``workers.retention`` (by upload age).

All the SQL lives in ``webapp.timeseries.backend``; this migration only calls it.
"""

from __future__ import annotations

from django.db import migrations

from webapp.timeseries import backend


def forwards(apps, schema_editor):  # type: ignore[no-untyped-def]
    backend.remove_retention_policies(schema_editor)


class Migration(migrations.Migration):
    dependencies = [("timeseries", "0002_timescale_or_rollup_table")]
    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]

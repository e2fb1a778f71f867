"""Each file row's time kept once (issue 25): ``counter_sample`` becomes ``sample_row`` + ``sample_point``.

The tables, the move of existing samples, the TimescaleDB settings and the
``counter_sample`` view are built by ``backend.move_to_row_layout``; the
state operations tell Django about the two new tables and the view.
"""

import django.db.models.deletion
from django.db import migrations, models

from webapp.timeseries import backend


def forwards(apps, schema_editor):  # type: ignore[no-untyped-def]
    backend.move_to_row_layout(schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0009_resourcelimit_timing"),
        ("timeseries", "0008_timing_names"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(forwards, migrations.RunPython.noop)],
            state_operations=[
                migrations.AlterModelOptions(
                    name="countersample",
                    options={"managed": False},
                ),
                migrations.CreateModel(
                    name="SamplePoint",
                    fields=[
                        (
                            "pk",
                            models.CompositePrimaryKey(
                                "series_id",
                                "row_id",
                                blank=True,
                                editable=False,
                                primary_key=True,
                                serialize=False,
                            ),
                        ),
                        ("day", models.DateTimeField()),
                        ("row_id", models.BigIntegerField()),
                        ("value", models.FloatField()),
                        (
                            "series",
                            models.ForeignKey(
                                db_constraint=False,
                                db_index=False,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="timeseries.counterseries",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "sample_point",
                        "indexes": [
                            models.Index(fields=["row_id", "series"], name="sample_point_row"),
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="SampleRow",
                    fields=[
                        ("row_id", models.BigIntegerField(primary_key=True, serialize=False)),
                        ("time", models.DateTimeField()),
                        (
                            "upload",
                            models.ForeignKey(
                                db_constraint=False,
                                db_index=False,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="core.upload",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "sample_row",
                        "indexes": [models.Index(fields=["time"], name="sample_row_time")],
                    },
                ),
            ],
        )
    ]

"""Each row's time kept as a point of ``sample_point`` (issue 25): ``sample_row`` goes.

``backend.move_row_times_to_points`` moves the times, adds the partial index
``sample_point_time`` and rebuilds the ``counter_sample`` view over the one
table; the state operations tell Django.
"""

from django.db import migrations, models

from webapp.timeseries import backend


def forwards(apps, schema_editor):  # type: ignore[no-untyped-def]
    backend.move_row_times_to_points(schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("timeseries", "0009_row_layout"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(forwards, migrations.RunPython.noop)],
            state_operations=[
                migrations.DeleteModel(name="SampleRow"),
                migrations.AddIndex(
                    model_name="samplepoint",
                    index=models.Index(
                        condition=models.Q(("series_id", 0)),
                        fields=["value", "row_id"],
                        name="sample_point_time",
                    ),
                ),
            ],
        )
    ]

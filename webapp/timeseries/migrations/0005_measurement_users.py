"""A measurement may say how many users were active when it was taken (a timing's ``users``).

A nullable column without a default: on PostgreSQL it is a catalogue change only (no table
rewrite), and TimescaleDB accepts it on a hypertable whose chunks are compressed, where a
column with a default or a NOT NULL constraint would be refused.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("timeseries", "0004_measurement_host")]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    "ALTER TABLE measurement ADD COLUMN users integer",
                    "ALTER TABLE measurement DROP COLUMN users",
                )
            ],
            state_operations=[
                migrations.AddField(
                    model_name="measurement",
                    name="users",
                    field=models.IntegerField(blank=True, null=True),
                )
            ],
        )
    ]

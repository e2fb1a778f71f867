"""The host that recorded a measurement becomes part of its identity.

Many load clients report into one run (a VMFleet, FSCT or Login VSI-style study):
two hosts' figures of the same metric at the same second are two results, not a
conflict. Existing rows take their upload's host. The primary key is rebuilt by
hand because Django does not alter a composite primary key; on TimescaleDB the
hypertable passes the new key on to its chunks.
"""

from django.db import migrations, models

# The key's name is whatever Django (or TimescaleDB) gave it: look it up.
DROP_PRIMARY_KEY = """
    DO $$
    DECLARE key_name text;
    BEGIN
        SELECT conname INTO key_name FROM pg_constraint
        WHERE conrelid = 'measurement'::regclass AND contype = 'p';
        EXECUTE format('ALTER TABLE measurement DROP CONSTRAINT %I', key_name);
    END $$
"""
FORWARD = [
    "ALTER TABLE measurement ADD COLUMN host_id bigint NOT NULL DEFAULT 0",
    "UPDATE measurement m SET host_id = u.host_id FROM core_upload u"
    " WHERE u.id = m.upload_id AND u.host_id IS NOT NULL",
    DROP_PRIMARY_KEY,
    "ALTER TABLE measurement ADD PRIMARY KEY (run_id, host_id, metric, subject, repetition, time)",
]
BACKWARD = [
    DROP_PRIMARY_KEY,
    "ALTER TABLE measurement DROP COLUMN host_id",
    "ALTER TABLE measurement ADD PRIMARY KEY (run_id, metric, subject, repetition, time)",
]


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0001_initial"),
        ("timeseries", "0003_retention_by_upload_age"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunSQL(FORWARD, BACKWARD)],
            state_operations=[
                migrations.AddField(
                    model_name="measurement", name="host_id", field=models.BigIntegerField(default=0)
                ),
                migrations.AlterField(
                    model_name="measurement",
                    name="pk",
                    field=models.CompositePrimaryKey(
                        "run_id",
                        "host_id",
                        "metric",
                        "subject",
                        "repetition",
                        "time",
                        blank=True,
                        editable=False,
                        primary_key=True,
                        serialize=False,
                    ),
                ),
            ],
        )
    ]

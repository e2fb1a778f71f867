"""Time-series tables.

* ``CounterSeries`` -- the series dictionary ``(host, object, instance, counter)``;
* ``SamplePoint`` -- each sample ``(series, row, value)``, and each file row's
  time, kept once as the row's point of series 0; ``CounterSample`` is the view
  joining them as ``(time, series, value, upload)`` (see ``samples``);
* ``Measurement`` -- scalar results ``(time, run, host, metric, value, unit, repetition)``:
  many clients report into one run (a fleet of load VMs), so the host that
  recorded a figure is part of its identity;
* ``CounterRollup`` -- one-minute rollups (a continuous aggregate on
  TimescaleDB, a table kept current by a worker task otherwise; see
  ``backend``);
* ``TimingUnitSummary``, ``TimingUnitLowest``, ``TimingStepPercentile`` --
  timings already placed on the user axis, summed per client repetition and
  with exact per-step percentiles, so that capacity by user experience costs
  what the runs, steps and clients cost, not the timings. Ordinary tables in
  both modes, kept current from ``TimingDirty`` and each run's steps
  (``TimingSummaryRun``); see ``timing_summary``.

The sample and measurement tables carry the id of the upload that produced
each row so re-running an upload replaces exactly its rows. Their references
are not enforced by the database (``db_constraint=False``): per-row foreign
key checks would halve COPY speed, and the loader is the only writer.
"""

from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.db import models

from webapp.core.models import Host, Run, Upload


class CounterSeries(models.Model):
    host = models.ForeignKey(Host, on_delete=models.CASCADE, related_name="series")
    object = models.CharField(max_length=255)
    instance = models.CharField(max_length=255, blank=True)
    counter = models.CharField(max_length=255)
    source_path = models.TextField(
        blank=True, help_text="the column as the file spelled it (maybe localised)"
    )

    class Meta:
        verbose_name_plural = "counter series"
        constraints = [
            models.UniqueConstraint(
                fields=["host", "object", "instance", "counter"], name="series_unique_path"
            )
        ]
        indexes = [models.Index(fields=["object", "counter"], name="series_object_counter")]

    def __str__(self) -> str:
        instance = f"({self.instance})" if self.instance else ""
        return f"\\\\{self.host.name}\\{self.object}{instance}\\{self.counter}"


class SamplePoint(models.Model):
    """One sample: a series' value in a row, or the row's time (series 0; a hypertable on ``day`` under TimescaleDB)."""

    pk = models.CompositePrimaryKey("series_id", "row_id")
    day = models.DateTimeField()  # the row's day (UTC), for chunks and chunk exclusion
    series = models.ForeignKey(
        CounterSeries, on_delete=models.DO_NOTHING, db_constraint=False, db_index=False, related_name="+"
    )
    row_id = models.BigIntegerField()
    value = models.FloatField()

    class Meta:
        db_table = "sample_point"
        indexes = [
            models.Index(fields=["row_id", "series"], name="sample_point_row"),
            # The rows' times: the points of series 0 (samples.ROW_TIME), by value.
            models.Index(
                fields=["value", "row_id"], name="sample_point_time", condition=models.Q(series_id=0)
            ),
        ]


class CounterSample(models.Model):
    """Read-only view of the samples with their rows' times (``samples.AS_ROWS``, migration 0009)."""

    pk = models.CompositePrimaryKey("series_id", "time")
    time = models.DateTimeField()
    series = models.ForeignKey(
        CounterSeries, on_delete=models.DO_NOTHING, db_constraint=False, db_index=False, related_name="+"
    )
    value = models.FloatField()
    upload = models.ForeignKey(
        Upload, on_delete=models.DO_NOTHING, db_constraint=False, db_index=False, related_name="+"
    )

    class Meta:
        managed = False
        db_table = "counter_sample"


class Measurement(models.Model):
    pk = models.CompositePrimaryKey("run_id", "host_id", "metric", "subject", "repetition", "time")
    time = models.DateTimeField()
    run = models.ForeignKey(
        Run, on_delete=models.DO_NOTHING, db_constraint=False, db_index=False, related_name="+"
    )
    # The machine that recorded the figure (core_host.id); 0 when neither the file nor the
    # upload named one. Not a foreign key: it is part of the primary key, which cannot be null.
    host_id = models.BigIntegerField(default=0)
    metric = models.CharField(max_length=200)
    subject = models.CharField(max_length=255, blank=True, default="")
    value = models.FloatField()
    unit = models.CharField(max_length=32, blank=True)
    repetition = models.PositiveIntegerField(default=1)
    # Active user sessions when the figure was measured, when the client said (a timing's
    # ``users``); else the figure belongs to the load step its time falls in.
    users = models.IntegerField(null=True, blank=True)
    upload = models.ForeignKey(
        Upload, on_delete=models.DO_NOTHING, db_constraint=False, db_index=False, related_name="+"
    )

    class Meta:
        db_table = "measurement"
        indexes = [
            models.Index(fields=["upload"], name="measurement_upload"),
            models.Index(fields=["metric", "run"], name="measurement_metric_run"),
        ]


class CounterRollup(models.Model):
    """Read-only view of the one-minute rollup (created by migration 0002)."""

    pk = models.CompositePrimaryKey("series_id", "bucket")
    series = models.ForeignKey(
        CounterSeries, on_delete=models.DO_NOTHING, db_constraint=False, related_name="+"
    )
    bucket = models.DateTimeField()
    n = models.BigIntegerField()
    total = models.FloatField()
    minimum = models.FloatField()
    maximum = models.FloatField()

    class Meta:
        managed = False
        db_table = "counter_rollup_1m"


class RollupDirty(models.Model):
    """A time range whose rollups must be recomputed (written by the loader)."""

    start = models.DateTimeField()
    end = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "rollup_dirty"


class TimingUnitSummary(models.Model):
    """Count and sum of one unit's (run, host, repetition) timings of one metric at one user count."""

    pk = models.CompositePrimaryKey("run_id", "metric", "users", "host_id", "repetition")
    run_id = models.BigIntegerField()
    metric = models.CharField(max_length=200)
    users = models.IntegerField()
    host_id = models.BigIntegerField()
    repetition = models.PositiveIntegerField()
    n = models.BigIntegerField()
    total = models.FloatField()

    class Meta:
        db_table = "timing_unit_summary"
        indexes = [models.Index(fields=["metric", "run_id"], name="timing_unit_metric_run")]


class TimingUnitLowest(models.Model):
    """One unit's smallest placed timings of one metric (``timing_summary.LOWEST_KEPT`` at most), sorted."""

    pk = models.CompositePrimaryKey("run_id", "metric", "host_id", "repetition")
    run_id = models.BigIntegerField()
    metric = models.CharField(max_length=200)
    host_id = models.BigIntegerField()
    repetition = models.PositiveIntegerField()
    lowest = ArrayField(models.FloatField())

    class Meta:
        db_table = "timing_unit_lowest"


class TimingStepPercentile(models.Model):
    """Median and 95th percentile of a scenario's timings of one metric at one user count, every run pooled."""

    pk = models.CompositePrimaryKey("scenario_id", "metric", "users")
    scenario_id = models.BigIntegerField()
    metric = models.CharField(max_length=200)
    users = models.IntegerField()
    n = models.BigIntegerField()
    p50 = models.FloatField()
    p95 = models.FloatField()

    class Meta:
        db_table = "timing_step_percentile"


class TimingSummaryRun(models.Model):
    """What a run's timing summary was computed from: its scenario and a digest of its load steps."""

    run_id = models.BigIntegerField(primary_key=True)
    scenario_id = models.BigIntegerField()
    steps = models.CharField(max_length=32)
    # The run's timing names in ms on the user axis ("metric [subject]"), as capacity offers them.
    names = ArrayField(models.TextField(), default=list)
    refreshed_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "timing_summary_run"


class TimingDirty(models.Model):
    """A run whose timings changed (written by the loader); its summary must be recomputed."""

    run_id = models.BigIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "timing_dirty"
        indexes = [models.Index(fields=["run_id"], name="timing_dirty_run")]


class WindowPercentile(models.Model):
    """The 95th percentile of some series' raw samples in one time window, kept once computed.

    Written and read by ``analysis.window_percentiles``, which only keeps a
    value while no pending ``RollupDirty`` range touches the window and drops
    every value whose window a processed range touched (``forget``): a kept
    value always equals the raw computation. An ordinary table in both modes.
    """

    digest = models.CharField(max_length=32, primary_key=True)  # md5 of lo, hi and the sorted series ids
    lo = models.DateTimeField()
    hi = models.DateTimeField()
    series_ids = ArrayField(models.BigIntegerField())
    value = models.FloatField()

    class Meta:
        db_table = "window_percentile"
        indexes = [models.Index(fields=["lo", "hi"], name="window_percentile_span")]

"""Prometheus metrics, computed from the database and the broker at scrape time.

Why at scrape time: gunicorn runs several web processes and Celery workers
run on several machines, so counters kept in process memory would each see a
slice (prometheus-client's multiprocess mode only fixes that within one
machine, through a shared directory). The uploads table already records
every outcome: its status, rows, and the ``queued_at``/``started_at``/
``finished_at`` of the last attempt. Reading it on each scrape gives the same
answer from any web process, and workers need to expose nothing.

The two latency histograms are cumulative over every upload in the table, so
``rate()`` and ``histogram_quantile()`` work on them as on any histogram (they
drop when uploads are deleted, which Prometheus treats as a counter reset).
Each scrape costs four small aggregate queries over ``core_upload``, one over
the worker heartbeats and one Redis round trip.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from datetime import timedelta
from typing import Any

import redis
from django.conf import settings
from django.db.models import Count, DurationField, ExpressionWrapper, F, Q, QuerySet, Sum
from django.utils import timezone
from prometheus_client.core import GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector, CollectorRegistry

from webapp.core.models import Upload, WorkerHeartbeat

log = logging.getLogger(__name__)

# Seconds. Most uploads parse in well under a second; big perfmon logs take minutes.
LATENCY_BUCKETS: tuple[float, ...] = (0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800)
# Kombu's Redis transport keeps messages sent with a priority in sibling
# lists named queue + "\x06\x16" + priority (kombu.transport.redis._q_for_pri).
_PRIORITY_SEPARATOR = "\x06\x16"
_PRIORITY_STEPS = (3, 6, 9)


def queue_names() -> list[str]:
    return [queue.name for queue in settings.CELERY_TASK_QUEUES]


def redis_queue_lengths(url: str, queues: Sequence[str]) -> dict[str, int]:
    """Messages waiting in each Celery queue of the Redis broker at ``url`` (LLEN)."""
    client = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)
    try:
        with client.pipeline(transaction=False) as pipe:
            for name in queues:
                pipe.llen(name)
                for priority in _PRIORITY_STEPS:
                    pipe.llen(f"{name}{_PRIORITY_SEPARATOR}{priority}")
            lengths = pipe.execute()
    finally:
        client.close()
    per_queue = 1 + len(_PRIORITY_STEPS)
    return {name: sum(lengths[i * per_queue : (i + 1) * per_queue]) for i, name in enumerate(queues)}


def _histogram(
    name: str, documentation: str, uploads: QuerySet[Upload], start: str, end: str, label: str | None
) -> HistogramMetricFamily:
    """A histogram of ``end - start`` over ``uploads``, bucketed in SQL (one query)."""
    span = ExpressionWrapper(F(end) - F(start), output_field=DurationField())
    bounds = {
        f"le_{i}": Count("pk", filter=Q(span__lte=timedelta(seconds=bound)))
        for i, bound in enumerate(LATENCY_BUCKETS)
    }
    spans = uploads.filter(**{f"{start}__isnull": False, f"{end}__isnull": False}).annotate(span=span)
    aggregates = {"n": Count("pk"), "total": Sum("span"), **bounds}
    rows: list[dict[str, Any]]
    if label:
        rows = list(spans.values(label).annotate(**aggregates).order_by(label))
    else:
        rows = [spans.aggregate(**aggregates)]
    family = HistogramMetricFamily(name, documentation, labels=[label] if label else None)
    for row in rows:
        # str(float()) spells these bounds as Prometheus clients do: "5.0", "0.25".
        buckets: list[tuple[str, float]] = [
            (str(float(bound)), float(row[f"le_{i}"])) for i, bound in enumerate(LATENCY_BUCKETS)
        ]
        buckets.append(("+Inf", float(row["n"])))
        total: timedelta = row["total"] or timedelta(0)
        family.add_metric([str(row[label])] if label else [], buckets, total.total_seconds())
    return family


class HeadroomCollector(Collector):
    """Uploads by status, rows ingested, ingest latency, live workers and queue depth."""

    def collect(self) -> Iterator[Metric]:
        uploads = GaugeMetricFamily(
            "headroom_uploads",
            "Uploads by pipeline status (received, queued, parsing, stored, failed).",
            labels=["status"],
        )
        counts: dict[str, Any] = dict.fromkeys(Upload.Status.values, 0)
        counts.update(Upload.objects.values_list("status").annotate(n=Count("pk")).order_by())
        for status, n in counts.items():
            uploads.add_metric([status], n)
        yield uploads

        rows = GaugeMetricFamily(
            "headroom_ingested_rows",
            "Rows (counter samples and measurements) of stored uploads, by parser.",
            labels=["parser"],
        )
        stored = Upload.objects.filter(status=Upload.Status.STORED)
        for parser, total in stored.values_list("parser").annotate(total=Sum("rows")).order_by("parser"):
            rows.add_metric([parser or "unknown"], total or 0)
        yield rows

        finished = Upload.objects.filter(status__in=[Upload.Status.STORED, Upload.Status.FAILED])
        yield _histogram(
            "headroom_ingest_duration_seconds",
            "Seconds from a worker claiming an upload to its outcome (last attempt), by outcome.",
            finished,
            "started_at",
            "finished_at",
            "status",
        )
        yield _histogram(
            "headroom_ingest_queue_wait_seconds",
            "Seconds an upload waited in the queue before a worker claimed it (last attempt).",
            Upload.objects.all(),
            "queued_at",
            "started_at",
            None,
        )

        alive_since = timezone.now() - timedelta(seconds=settings.WORKER_STALE_SECONDS)
        yield GaugeMetricFamily(
            "headroom_workers_alive",
            "Celery workers with a heartbeat newer than HEADROOM_WORKER_STALE_SECONDS.",
            value=WorkerHeartbeat.objects.filter(seen_at__gte=alive_since).count(),
        )

        yield from self.collect_queues()

    def collect_queues(self) -> Iterator[Metric]:
        url = settings.CELERY_BROKER_URL
        if not url.startswith(("redis://", "rediss://")):
            return  # other transports: the queue metrics are absent, not zero
        depth = GaugeMetricFamily(
            "headroom_queue_length", "Messages waiting in a Celery queue (Redis LLEN).", labels=["queue"]
        )
        try:
            lengths = redis_queue_lengths(url, queue_names())
        except redis.RedisError as exc:
            log.warning("metrics: cannot read queue lengths from the broker: %s", exc)
            yield GaugeMetricFamily(
                "headroom_broker_up", "1 if the Redis broker answered this scrape.", value=0
            )
            return
        for name, length in lengths.items():
            depth.add_metric([name], length)
        yield GaugeMetricFamily("headroom_broker_up", "1 if the Redis broker answered this scrape.", value=1)
        yield depth


def build_registry() -> CollectorRegistry:
    """A registry holding only Headroom's collector (no per-process default metrics)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(HeadroomCollector())
    return registry


REGISTRY = build_registry()

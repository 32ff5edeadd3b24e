"""The service's Prometheus metrics, one set per process (imported only when METRICS is on).

With several workers each process writes its values to PROMETHEUS_MULTIPROC_DIR
(prometheus-client's multiprocess mode, chosen when that variable is set before this
module is imported) and /metrics adds them up; gauges are summed over live processes.
Label values are bounded: routes are templates, models the configured ones, outcomes and
reasons fixed words — never a user, a thread or a question.
"""

from __future__ import annotations

import functools
import os

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client import multiprocess as prometheus_multiprocess

MULTIPROC_DIR_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
"""Read by prometheus-client itself, at import, to choose its multiprocess mode."""

FAST_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
SLOW_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120, 300)
ROW_BUCKETS = (0, 1, 10, 100, 1000, 10000, 100000)


class ServiceMetrics:
    """Every metric of the service (see docs/observability.md for the list)."""

    def __init__(self, registry: CollectorRegistry | None = REGISTRY) -> None:
        def counter(name: str, doc: str, labels: tuple[str, ...] = ()) -> Counter:
            return Counter(name, doc, labels, registry=registry)

        def histogram(name: str, doc: str, labels: tuple[str, ...], buckets: tuple) -> Histogram:
            return Histogram(name, doc, labels, registry=registry, buckets=buckets)

        def gauge(name: str, doc: str) -> Gauge:
            return Gauge(name, doc, registry=registry, multiprocess_mode="livesum")

        self.http_requests = counter(
            "sqlagent_http_requests", "HTTP requests answered.", ("method", "route", "status")
        )
        self.http_duration = histogram(
            "sqlagent_http_request_duration_seconds",
            "Time to the response's headers (a stream's body goes on after).",
            ("method", "route"),
            (*FAST_BUCKETS, 30, 60),
        )
        self.runs_started = counter("sqlagent_runs_started", "Runs created (questions, resumes).")
        self.runs_finished = counter(
            "sqlagent_runs_finished", "Runs ended, by outcome.", ("outcome",)
        )
        self.run_duration = histogram(
            "sqlagent_run_duration_seconds",
            "Runs from creation to end.",
            ("outcome",),
            SLOW_BUCKETS,
        )
        self.runs_active = gauge("sqlagent_runs_active", "Runs answering now.")
        self.runs_queued = gauge("sqlagent_runs_queued", "Runs waiting for a slot or a thread.")
        self.streams_open = gauge("sqlagent_streams_open", "SSE/NDJSON streams following a run.")
        self.model_calls = counter(
            "sqlagent_model_calls", "Chat model calls.", ("model", "outcome")
        )
        self.model_duration = histogram(
            "sqlagent_model_call_duration_seconds", "Chat model calls.", ("model",), SLOW_BUCKETS
        )
        self.model_tokens = counter(
            "sqlagent_model_tokens", "Tokens of model calls.", ("model", "kind")
        )
        self.sql_queries = counter(
            "sqlagent_sql_queries", "run_sql calls.", ("backend", "outcome", "reason")
        )
        self.sql_duration = histogram(
            "sqlagent_sql_query_duration_seconds", "run_sql calls.", ("backend",), FAST_BUCKETS
        )
        self.sql_rows = histogram(
            "sqlagent_sql_query_rows", "Rows a query found.", ("backend",), ROW_BUCKETS
        )
        self.checkpoint_writes = histogram(
            "sqlagent_checkpoint_write_duration_seconds",
            "Checkpoint writes (aput, aput_writes).",
            ("operation",),
            FAST_BUCKETS,
        )
        self.retrieval_duration = histogram(
            "sqlagent_memory_retrieval_duration_seconds",
            "The memory's example search before a question's first model call.",
            (),
            FAST_BUCKETS,
        )
        self.schema_retrieval_duration = histogram(
            "sqlagent_schema_retrieval_duration_seconds",
            "The schema catalogue's part of a question's prompt, at its first model call.",
            ("outcome",),
            FAST_BUCKETS,
        )
        self._add_source_metrics(registry)
        self.rejections = counter(
            "sqlagent_admission_rejections",
            "Questions refused at admission (queue full, quota, shutting down).",
            ("reason",),
        )

    def _add_source_metrics(self, registry: CollectorRegistry | None) -> None:
        """Each data source's fair share (databases/fair_share), labelled by source name."""
        self.source_in_use = Gauge(
            "sqlagent_source_in_use",
            "Statements running on a data source now.",
            ("source",),
            registry=registry,
            multiprocess_mode="livesum",
        )
        self.source_queued = Gauge(
            "sqlagent_source_queued",
            "Statements waiting for their turn on a data source.",
            ("source",),
            registry=registry,
            multiprocess_mode="livesum",
        )
        self.source_refused = Counter(
            "sqlagent_source_refused",
            "Statements that waited past DATA_SOURCE_MAX_WAIT (503 DATA_SOURCE_BUSY).",
            ("source",),
            registry=registry,
        )


@functools.cache
def process_metrics() -> ServiceMetrics:
    """Return this process's metrics, created on first use."""
    return ServiceMetrics()


def multiprocess_dir() -> str | None:
    """Return the directory workers share their metrics in, or None for one process."""
    return os.environ.get(MULTIPROC_DIR_VARIABLE) or None


def exposition() -> tuple[bytes, str]:
    """Return the Prometheus text of every worker's metrics (or this process's) and its type."""
    if multiprocess_dir() is None:
        return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
    registry = CollectorRegistry()
    prometheus_multiprocess.MultiProcessCollector(registry)
    return generate_latest(registry), CONTENT_TYPE_LATEST

"""Metrics over several workers: the directory they share, and /metrics on METRICS_PORT."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from config import Settings

MULTIPROC_DIR_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
"""Read by prometheus-client itself in each worker, when it is imported."""


def prepare_worker_metrics(settings: Settings) -> str | None:
    """Give the workers about to start an empty directory to keep their metrics in.

    Called by the supervisor before it starts any worker (they inherit the variable) and
    before it imports prometheus-client. Returns the directory, or None with metrics off
    or one process (whose own registry is its /metrics).
    """
    if not settings.metrics or settings.workers <= 1:
        return None
    directory = settings.prometheus_multiproc_dir or tempfile.mkdtemp(prefix="sqlagent-metrics-")
    Path(directory).mkdir(parents=True, exist_ok=True)
    for stale in Path(directory).glob("*.db"):  # a previous start's counts are not ours
        stale.unlink()
    os.environ[MULTIPROC_DIR_VARIABLE] = directory
    return directory


def forget_worker(settings: Settings, pid: int) -> None:
    """Drop a dead worker's live gauges (its counters stay in the sums, as they should)."""
    if settings.metrics and os.environ.get(MULTIPROC_DIR_VARIABLE):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid)


def serve_metrics_port(settings: Settings) -> None:
    """Serve /metrics on METRICS_PORT from this process (a thread), when it is set."""
    if not settings.metrics or settings.metrics_port is None:
        return
    from prometheus_client import REGISTRY, CollectorRegistry, multiprocess, start_http_server

    registry = REGISTRY
    if os.environ.get(MULTIPROC_DIR_VARIABLE):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    start_http_server(settings.metrics_port, addr=settings.host, registry=registry)

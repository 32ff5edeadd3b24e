"""Each data source's fair share in /metrics: statements running, waiting and refused."""

from __future__ import annotations

from react_agent.databases.fair_share import ShareCounts, ShareReport
from react_agent.observability.metrics import ServiceMetrics


def report_share(metrics: ServiceMetrics) -> ShareReport:
    """Return what a FairShare tells of each change: the gauges set, the refusals counted."""
    refused: dict[str, int] = {}

    def report(source: str, counts: ShareCounts) -> None:
        metrics.source_in_use.labels(source).set(counts.in_use)
        metrics.source_queued.labels(source).set(counts.queued)
        new = counts.refused - refused.get(source, 0)
        if new > 0:
            metrics.source_refused.labels(source).inc(new)
            refused[source] = counts.refused

    return report

"""The soak's measurements in the shape of its JSON report: streams, latencies, the service."""

from __future__ import annotations

import argparse
import statistics
from collections import Counter
from dataclasses import asdict
from typing import Any

from app.streaming.runs import FINISHED_RUN_TTL
from bench.soak.process_samples import ProcessSample
from bench.soak.streams import LoadState, StreamRecord


def percentile(values: list[float], q: float) -> float | None:
    """Return the nearest-rank q-th percentile (0-100) of `values`, or None if empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, round(q / 100 * len(ordered) + 0.5 - 1e-9))
    return round(ordered[min(rank, len(ordered)) - 1], 3)


def summarize(
    args: argparse.Namespace,
    state: LoadState,
    warmup: list[StreamRecord],
    idle: ProcessSample,
    baseline: ProcessSample,
    timeline: list[ProcessSample],
    after: ProcessSample,
    load_seconds: float,
) -> dict[str, Any]:
    """Put the measurements in the shape of the JSON report."""
    outcomes = Counter(record.outcome for record in state.records)
    latencies = [r.latency for r in state.records if r.outcome == "completed"]
    first_events = [r.first_event for r in state.records if r.first_event is not None]
    peak_rss = max([s.rss_mb for s in timeline] + [after.rss_mb])
    peak_fds = max([s.fds for s in timeline] + [after.fds])
    return {
        "config": {
            "concurrency": args.concurrency,
            "duration_s": args.duration,
            "latency_ms": args.latency_ms,
            "questions_per_thread": args.questions_per_thread,
            "checkpointer": "sqlite",
            "max_rss_growth": args.max_rss_growth,
            "max_rss_drift": args.max_rss_drift,
            "fd_slack": args.fd_slack,
        },
        "warmup": dict(Counter(record.outcome for record in warmup)),
        "streams": {
            "started": state.started,
            "finished": len(state.records),
            "completed": outcomes["completed"],
            "errored": {k[6:]: v for k, v in outcomes.items() if k.startswith("error:")},
            "broken": {k[7:]: v for k, v in outcomes.items() if k.startswith("broken:")},
        },
        "latency_s": {
            "p50": percentile(latencies, 50),
            "p90": percentile(latencies, 90),
            "p99": percentile(latencies, 99),
            "max": round(max(latencies), 3) if latencies else None,
        },
        "first_event_s": {
            "p50": percentile(first_events, 50),
            "p99": percentile(first_events, 99),
        },
        "throughput_per_s": round(outcomes["completed"] / load_seconds, 1),
        "load_seconds": round(load_seconds, 1),
        "service": {
            "idle_after_start": asdict(idle),
            "baseline_after_warmup": asdict(baseline),
            "peak": {"rss_mb": peak_rss, "fds": peak_fds},
            "rss_second_half": rss_second_half(timeline, args.duration),
            "after": asdict(after),
        },
        "timeline": [asdict(sample) for sample in timeline],
    }


def rss_second_half(timeline: list[ProcessSample], duration: float) -> dict[str, Any] | None:
    """Compare the median RSS of the third and the last quarter of the load.

    Finished runs are kept for FINISHED_RUN_TTL, so RSS rises for about that long, then
    should stay level; a leak keeps rising. Medians ignore a single step (a new arena).
    Loads shorter than twice the TTL return None (not judged).
    """
    if duration < 2 * FINISHED_RUN_TTL:
        return None
    third = [s.rss_mb for s in timeline if duration / 2 <= s.t < duration * 3 / 4]
    last = [s.rss_mb for s in timeline if duration * 3 / 4 <= s.t <= duration]
    if not third or not last:
        return None
    middle, end = statistics.median(third), statistics.median(last)
    return {
        "third_quarter_median_mb": middle,
        "last_quarter_median_mb": end,
        "growth": round(end / middle - 1, 4),
    }

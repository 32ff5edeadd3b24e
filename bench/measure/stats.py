"""Statistics of a level or a series: throughput, latency percentiles (ms), completion."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from bench.drivers.question import Sample


def percentile(values: list[float], q: float) -> float | None:
    """Return the q-th percentile (0-100), nearest rank; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def _ms(value: float | None) -> float | None:
    return None if value is None else round(value * 1000, 1)


def summarize(samples: list[Sample], wall: float, not_finished: int = 0) -> dict[str, Any]:
    """Throughput, latency percentiles (ms) and completion of one level or series."""
    good = [s for s in samples if s.ok]
    totals = [s.total for s in good]
    started = [s.started for s in good if s.started is not None]
    first = [s.first_node for s in good if s.first_node is not None]
    errors = Counter(s.error for s in samples if not s.ok)
    if not_finished:
        errors["not finished within the level's deadline"] += not_finished
    questions = len(samples) + not_finished
    return {
        "questions": questions,
        "completed": len(good),
        "failed": questions - len(good),
        "all_completed": len(good) == questions,
        "errors": dict(errors.most_common(5)),
        "wall_s": round(wall, 3),
        "throughput_qps": round(len(good) / wall, 2) if wall > 0 else None,
        "started_p50_ms": _ms(percentile(started, 50)),
        "started_p99_ms": _ms(percentile(started, 99)),
        "first_node_p50_ms": _ms(percentile(first, 50)),
        "first_node_p99_ms": _ms(percentile(first, 99)),
        "total_p50_ms": _ms(percentile(totals, 50)),
        "total_p99_ms": _ms(percentile(totals, 99)),
        "total_mean_ms": _ms(sum(totals) / len(totals)) if totals else None,
        "total_min_ms": _ms(min(totals)) if totals else None,
        "total_max_ms": _ms(max(totals)) if totals else None,
    }

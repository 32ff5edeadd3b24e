"""latency.png: time to the end, time to the first event and throughput against concurrency."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.report.labels import STACK_FLOOR, label, side_levels, sides_in
from bench.report.labels import color as color_of


def plot(results: dict[str, Any], path: Path) -> None:
    """Draw latency.png: latencies and throughput of every side against concurrency."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(16, 5))
    panels = [
        ("total_p50_ms", "total_p99_ms", "time to the end of the stream (ms)"),
        ("started_p50_ms", "started_p99_ms", "time to the first event (ms)"),
    ]
    for ax, (p50, p99, title) in zip(axes[:2], panels, strict=False):
        for side in sides_in(results):
            levels = list(side_levels(results, side).values())
            if not levels:
                continue
            xs = [lv["concurrency"] for lv in levels]
            color = color_of(side)
            ax.plot(
                xs, [lv.get(p50) for lv in levels], "o-", color=color, label=f"{label(side)} p50"
            )
            ax.plot(
                xs,
                [lv.get(p99) for lv in levels],
                "s--",
                color=color,
                alpha=0.7,
                label=f"{label(side)} p99",
            )
            _mark_disturbed(ax, levels, p50)
        ax.set_xscale("log")
        ax.set_yscale("log")
        _plain_ticks(ax, results, y=True)
        ax.set_xlabel("concurrent streamed questions")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=7)
    ax = axes[2]
    # The floor holds each stream without working: its questions per second would flatten
    # every other line of this (linear) panel.
    for side in [side for side in sides_in(results) if side != STACK_FLOOR]:
        levels = list(side_levels(results, side).values())
        if levels:
            ax.plot(
                [lv["concurrency"] for lv in levels],
                [lv.get("throughput_qps") for lv in levels],
                "o-",
                color=color_of(side),
                label=label(side),
            )
            _mark_disturbed(ax, levels, "throughput_qps")
    ax.set_xscale("log")
    _plain_ticks(ax, results, y=False)
    ax.set_xlabel("concurrent streamed questions")
    ax.set_title("completed questions per second")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    meta = results.get("meta", {})
    fig.suptitle(
        f"{meta.get('model_calls_per_question')} model calls × {meta.get('latency_ms')} ms "
        f"per question, {meta.get('cpu_count')} CPUs, {meta.get('date')}  "
        "(× = level disturbed by other load on the machine)"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _plain_ticks(ax: Any, results: dict[str, Any], *, y: bool) -> None:
    """Ticks at the measured concurrencies, and plain numbers instead of powers of ten."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    levels = sorted({int(c) for c in (results.get("meta") or {}).get("levels", {})})
    if levels:
        ax.set_xticks(levels)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    if y:
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))


def _mark_disturbed(ax: Any, levels: list[dict[str, Any]], key: str) -> None:
    """Cross out the points of levels that other load on the machine disturbed."""
    points = [(lv["concurrency"], lv.get(key)) for lv in levels if lv.get("disturbed")]
    points = [(x, y) for x, y in points if y is not None]
    if points:
        ax.scatter(*zip(*points, strict=True), marker="x", s=90, color="black", zorder=5)

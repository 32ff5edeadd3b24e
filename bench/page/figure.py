"""Draw `bench.page.frames` runs as an SVG: each frame's time while the thread scrolls.

    python -m bench.page.figure bench/results/52-page.json bench/results/52-page-frames.svg
    python -m bench.page.figure bench/results/52-page.json bench/results/52-page-drawing.svg \
        --while-drawing

No plotting library: the SVG is written by hand (one polyline per run, the 50 ms line).
"""

from __future__ import annotations

import json
import sys
from html import escape
from pathlib import Path
from typing import Any

WIDTH, HEIGHT, MARGIN = 760, 320, 48
CAP_MS = 300.0  # frames longer than this are drawn at the top edge (their value in the legend)
BUDGET_MS = 50.0
COLOURS = ("#cf222e", "#0969da", "#1a7f37", "#9a6700")


def _y(ms: float) -> float:
    return HEIGHT - MARGIN - min(ms, CAP_MS) / CAP_MS * (HEIGHT - 2 * MARGIN)


def frames_svg(runs: list[dict[str, Any]], key: str = "frame", title: str = "") -> str:
    """Return the SVG of the runs' frame times (x: the frame's share of the scroll).

    `key` names the frames: "frame" (the settled thread) or "drawing_frame" (while drawing).
    """
    plot = WIDTH - 2 * MARGIN
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'font-family="sans-serif" font-size="12">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#fff"/>',
        f'<text x="{MARGIN}" y="20">20-turn thread scrolled on a phone (390×844, CPU 4× '
        f"slower){escape(title)}: each frame's time (ms)</text>",
    ]
    for ms in (0, 50, 100, 200, 300):
        y = _y(ms)
        dash = ' stroke-dasharray="4 3"' if ms == BUDGET_MS else ""
        colour = "#9a6700" if ms == BUDGET_MS else "#d1d9e0"
        parts.append(
            f'<line x1="{MARGIN}" x2="{WIDTH - MARGIN}" y1="{y:.1f}" y2="{y:.1f}" '
            f'stroke="{colour}"{dash}/><text x="8" y="{y + 4:.1f}">{ms}</text>'
        )
    for index, run in enumerate(runs):
        frames = run[f"{key}_ms"]
        colour = COLOURS[index % len(COLOURS)]
        step = plot / max(1, len(frames) - 1)
        points = " ".join(f"{MARGIN + i * step:.1f},{_y(ms):.1f}" for i, ms in enumerate(frames))
        parts.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="1" points="{points}"/>'
        )
        legend = (
            f"{run['label']}: p50 {run[f'{key}_ms_p50']} ms, p95 {run[f'{key}_ms_p95']} ms, "
            f"max {run[f'{key}_ms_max']} ms, "
            f"{run[f'{key}s_over_50ms']}/{run[f'{key}s']} over 50 ms; "
            f"starters at {run['first_screen_s']} s (load {run['load_average'][0]})"
        )
        y = HEIGHT - 30 + index * 14
        parts.append(f'<text x="{MARGIN}" y="{y}" fill="{colour}">{escape(legend)}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main() -> None:
    """Read the runs' JSON (first argument) and write the SVG (second argument)."""
    runs = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    runs.sort(key=lambda run: not run["label"].startswith("before"))  # the older page first
    drawing = "--while-drawing" in sys.argv[3:]
    key, title = ("drawing_frame", ", while it draws") if drawing else ("frame", "")
    Path(sys.argv[2]).write_text(frames_svg(runs, key, title), encoding="utf-8")


if __name__ == "__main__":
    main()

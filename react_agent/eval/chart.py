"""The report's chart, written as SVG by hand: accuracy by tag and difficulty, cost per question."""

from __future__ import annotations

from html import escape
from typing import Any

BAR_HEIGHT = 16
GAP = 6
LABEL_WIDTH = 150
PLOT_WIDTH = 320
WIDTH = LABEL_WIDTH + PLOT_WIDTH + 90


def _panel(title: str, bars: list[tuple[str, float, str]], top: int, scale: float) -> list[str]:
    """Return the SVG elements of one horizontal bar panel starting at `top`."""
    parts = [f'<text x="8" y="{top + 14}" font-weight="bold">{escape(title)}</text>']
    y = top + 24
    for label, value, shown in bars:
        length = 0 if scale <= 0 else PLOT_WIDTH * value / scale
        parts += [
            f'<text x="{LABEL_WIDTH - 6}" y="{y + 12}" text-anchor="end">{escape(label)}</text>',
            f'<rect x="{LABEL_WIDTH}" y="{y}" width="{length:.1f}" height="{BAR_HEIGHT}" '
            'fill="#4c78a8"/>',
            f'<text x="{LABEL_WIDTH + length + 4:.1f}" y="{y + 12}">{escape(shown)}</text>',
        ]
        y += BAR_HEIGHT + GAP
    return parts


def _height(bar_count: int) -> int:
    return 24 + bar_count * (BAR_HEIGHT + GAP) + 14


def render_chart_svg(report: dict[str, Any]) -> str:
    """Return chart.svg for a report (no plotting library needed)."""
    panels: list[tuple[str, list[tuple[str, float, str]], float]] = []
    for title, key in (("Accuracy by difficulty", "by_difficulty"), ("Accuracy by tag", "by_tag")):
        bars = [
            (name, group["accuracy"], f"{group['accuracy']:.0%} {group['passed']}/{group['total']}")
            for name, group in report[key].items()
        ]
        panels.append((title, bars, 1.0))
    cost = report["cost_per_question"]
    tokens = [
        ("model calls", float(cost["model_calls"]), str(cost["model_calls"])),
        ("prompt tokens", float(cost["prompt_tokens"]), str(cost["prompt_tokens"])),
        ("completion tokens", float(cost["completion_tokens"]), str(cost["completion_tokens"])),
        ("seconds", float(cost["seconds"]), str(cost["seconds"])),
        ("SQL statements", float(cost["sql_count"]), str(cost["sql_count"])),
    ]
    # Each cost bar on its own scale would mislead; show them against the largest instead.
    panels.append(("Cost per question (mean)", tokens, max(v for _, v, _ in tokens) or 1.0))
    body: list[str] = []
    top = 0
    for title, bars, scale in panels:
        body += _panel(title, bars, top, scale)
        top += _height(len(bars))
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{top}" '
        f'font-family="sans-serif" font-size="12">\n'
        f'<rect width="{WIDTH}" height="{top}" fill="white"/>\n' + "\n".join(body) + "\n</svg>\n"
    )

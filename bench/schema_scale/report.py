"""The schema benchmark's figures as a short Markdown table beside the targets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

TARGETS = {
    "recall_at_10": "≥ 0.95",
    "prompt_chars_max": "≤ 6,000",
    "retrieval_ms_p99": "≤ 20 ms",
    "introspect_seconds": "≤ 60 s (PostgreSQL)",
}


def write_report(results: dict[str, Any], path: Path) -> None:
    """Write results.md: one column per dialect, one row per figure."""
    dialects = [d for d in ("sqlite", "postgres") if d in results]
    rows = [
        ("introspect_seconds", "build"), ("refresh_seconds", "build"),
        ("refresh_and_index_seconds", "build"),
        ("python_peak_mb", "build"), ("columns_with_values", "build"),
        ("recall_at_5", "retrieval"), ("recall_at_10", "retrieval"),
        ("recall_at_10_by_kind", "retrieval"), ("value_link_precision", "retrieval"),
        ("value_link_recall", "retrieval"), ("prompt_chars_mean", "retrieval"),
        ("prompt_chars_max", "retrieval"), ("retrieval_ms_p50", "retrieval"),
        ("retrieval_ms_p99", "retrieval"),
    ]  # fmt: skip
    lines = [
        "# Schema at scale (`python -m bench.schema_scale`)",
        "",
        f"{results['tables']} tables, {results['columns']} columns, "
        f"{results['questions']} questions, SCHEMA_PROMPT_BUDGET={results['budget']}. "
        f"Load average before/after: {results['load_average']} / "
        f"{results['load_average_after']} (2 shared cores).",
        "",
        "| figure | " + " | ".join(dialects) + " | target |",
        "|---|" + "---|" * (len(dialects) + 1),
    ]
    for name, part in rows:
        cells = [str(results[d][part].get(name)) for d in dialects]
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {TARGETS.get(name, '')} |")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")

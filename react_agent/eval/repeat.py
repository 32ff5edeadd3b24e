"""Reading repeated runs from a report line: pass@1, unstable questions, run marks."""

from __future__ import annotations

from typing import Any


def pass_rate(question: dict[str, Any]) -> float:
    """Return the share of a report line's runs that passed (its pass@1)."""
    runs = question.get("runs") or [question["passed"]]
    return sum(bool(run) for run in runs) / len(runs)


def is_unstable(question: dict[str, Any]) -> bool:
    """Whether a report line's runs disagree (some passed, some failed)."""
    runs = question.get("runs") or [question["passed"]]
    return any(runs) and not all(runs)


def runs_text(question: dict[str, Any]) -> str:
    """Return the runs as marks, `✓✗✓`."""
    return "".join("✓" if run else "✗" for run in question.get("runs") or [question["passed"]])

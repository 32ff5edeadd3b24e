"""Execution scoring, as the Spider test-suite evaluation compares result sets.

The comparison itself (react_agent/results/result_comparison, shared with the answer
candidates): the same number of columns, in any order; rows as a multiset, in order only
when the gold SQL's outermost query has ORDER BY; numbers equal to 6 significant digits,
NULL equal to NULL only, other values as their text. This module adds the reasons a
question fails besides different rows, and the facts an answer must state.
"""

from __future__ import annotations

from collections.abc import Sequence

from react_agent.results.result_comparison import (
    EXTRA_ROWS,
    MISSING_ROWS,
    PASSED,
    SIGNIFICANT_DIGITS,
    WRONG_VALUES,
    Row,
    Verdict,
    compare_results,
    normalise_value,
    outer_query_orders,
)

__all__ = [
    "EXTRA_ROWS",
    "MISSING_ROWS",
    "PASSED",
    "REASONS",
    "SIGNIFICANT_DIGITS",
    "WRONG_VALUES",
    "Row",
    "Verdict",
    "compare_results",
    "facts_missing",
    "normalise_value",
    "outer_query_orders",
]

SQL_ERROR = "SQL_ERROR"
REFUSED = "REFUSED"
NO_SQL = "NO_SQL"
TIMEOUT = "TIMEOUT"
FACT_MISSING = "FACT_MISSING"
AGENT_ERROR = "AGENT_ERROR"
GOLD_SQL_ERROR = "GOLD_SQL_ERROR"
OUT_OF_SCOPE = "OUT_OF_SCOPE"
REASONS = (
    MISSING_ROWS,
    EXTRA_ROWS,
    WRONG_VALUES,
    SQL_ERROR,
    REFUSED,
    NO_SQL,
    TIMEOUT,
    FACT_MISSING,
    AGENT_ERROR,
    GOLD_SQL_ERROR,
    OUT_OF_SCOPE,
)
"""Why a question failed; AGENT_ERROR is any other failure of the run (503, 500),
GOLD_SQL_ERROR a golden question whose own SQL does not run (a broken set, not the agent),
and OUT_OF_SCOPE a gold SQL the `--as` user's scope refuses (the policy hides what it needs)."""


def facts_missing(answer: str, facts: Sequence[str]) -> list[str]:
    """Return the facts the answer does not state (case, spaces and thousands commas aside)."""
    text = _fact_text(answer)
    return [fact for fact in facts if _fact_text(fact) not in text]


def _fact_text(text: str) -> str:
    return "".join(text.lower().split()).replace(",", "").replace("，", "")

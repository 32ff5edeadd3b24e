"""Handing a finished answer to the answer check (given to the runner; runs import no rules)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from react_agent.tools.results import result_artifacts

AnswerChecker = Callable[[str, Sequence[dict[str, Any]], str], dict[str, Any]]
"""(answer, records read, question and SQL) → `{checked, supported, unsupported}`."""

EARLIER_RESULTS = 10
"""Results of earlier turns a follow-up's answer may cite (the newest ones)."""


def review_answer(
    checker: AnswerChecker | None,
    answer: str,
    question: str,
    history: Sequence[Any],
    records_read: Sequence[dict[str, Any]],
    sqls: Sequence[dict[str, Any]],
) -> dict[str, Any] | None:
    """Return the answer check of a turn, or None without a checker or an answer."""
    if checker is None or not answer:
        return None
    earlier = [a for message in history for a in result_artifacts(message)][-EARLIER_RESULTS:]
    records = [a["records"] for a in earlier if a.get("records")] + list(records_read)
    statements = [a.get("sql") or "" for a in earlier] + [s.get("sql") or "" for s in sqls]
    return checker(answer, records, "\n".join([question, *statements]))

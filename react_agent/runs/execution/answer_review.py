"""Handing a finished answer to the answer check (given to the runner; runs import no rules)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.messages import AnyMessage, HumanMessage

from react_agent.graph.messages import message_text
from react_agent.runs.execution.turn_work import TurnWork
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
    repaired_from: dict[str, Any] | None = None,
) -> dict[str, Any] | None:
    """Return the answer check of a turn, or None without a checker or an answer.

    `repaired_from` is the check of the first answer when a repair turn followed it
    (ANSWER_CHECK=repair): the result then says `repaired: true` and keeps that answer's
    unsupported figures as `before`.
    """
    if checker is None or not answer:
        return None
    earlier = [a for message in history for a in result_artifacts(message)][-EARLIER_RESULTS:]
    records = [a["records"] for a in earlier if a.get("records")] + list(records_read)
    statements = [a.get("sql") or "" for a in earlier] + [s.get("sql") or "" for s in sqls]
    check = checker(answer, records, "\n".join([question, *statements]))
    return check if repaired_from is None else with_repair(check, repaired_from)


def with_repair(check: dict[str, Any], repaired_from: dict[str, Any]) -> dict[str, Any]:
    """Return `check` marked `repaired`, with the first answer's unsupported figures as `before`."""
    return {**check, "repaired": True, "before": list(repaired_from["unsupported"])}


def review_newest_answer(
    checker: AnswerChecker, messages: Sequence[AnyMessage]
) -> dict[str, Any] | None:
    """Return the check of the last message as the answer, read from the conversation.

    The question is the newest human message; the results are those after it and the
    newest ones before it, as the runner's check reads them.
    """
    start = max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=0)
    work = TurnWork()
    work.add({"messages": messages[start:]})
    question = message_text(messages[start]) if isinstance(messages[start], HumanMessage) else ""
    return review_answer(
        checker,
        message_text(messages[-1]),
        question,
        messages[:start],
        work.records_read,
        work.sqls,
    )

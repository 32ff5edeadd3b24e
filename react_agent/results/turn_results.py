"""A conversation read back turn by turn: each question with its answer, SQL, records and check."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, SystemMessage, ToolMessage

from react_agent.graph.messages import message_text
from react_agent.results.answer_repair import REPAIR_MARKER
from react_agent.results.candidates import CONFIDENCE_METADATA
from react_agent.results.charts import asks_for_share, build_chart
from react_agent.runs.execution.answer_review import (
    AnswerChecker,
    review_newest_answer,
    with_repair,
)
from react_agent.tools.results import result_artifacts

SQL_OUTCOMES = {"ok": "ok", "refused": "refused", "failed": "error", "rejected": "rejected"}
"""The artifact's outcome in the words the stream's `sqls` use."""


def conversation_turns(
    messages: list[AnyMessage], check: AnswerChecker | None = None
) -> list[dict[str, Any]]:
    """Return one item per question: `question`, `answer`, `sql`, `sqls`, `records`, `chart`.

    An answer that candidates weighed (ANSWER_CANDIDATES) also has its `confidence`.

    `sql` and `records` are the turn's last query that ran well (as the final data of that
    question had them), so a page reopening the conversation shows what it showed live.
    With `check` (ANSWER_CHECK on or repair), an answered turn also has `answer_check`,
    checked again by the same rules on the same results as the run's final check.
    """
    turns: list[dict[str, Any]] = []
    ends: list[dict[str, int]] = []  # per turn: where its answer and its repair request are
    for index, message in enumerate(messages):
        if isinstance(message, HumanMessage):
            turns.append(_new_turn(message_text(message), message))
            ends.append({})
        elif not turns:
            continue
        elif isinstance(message, AIMessage) and message_text(message):
            turns[-1]["answer"] = message_text(message)
            ends[-1]["answer"] = index
            if confidence := message.response_metadata.get(CONFIDENCE_METADATA):
                turns[-1]["confidence"] = confidence  # ANSWER_CANDIDATES weighed it
        elif isinstance(message, ToolMessage):
            _add_results(turns[-1], message)
        elif isinstance(message, SystemMessage) and message.response_metadata.get(REPAIR_MARKER):
            ends[-1]["repair"] = index
    for turn, end in zip(turns, ends, strict=True):
        turn["chart"] = build_chart(turn["records"], share_hint=asks_for_share(turn["question"]))
        if check is not None and "answer" in end:
            turn["answer_check"] = _turn_check(check, messages, end)
    return turns


def _turn_check(
    check: AnswerChecker, messages: list[AnyMessage], end: dict[str, int]
) -> dict[str, Any] | None:
    """Return a turn's answer check as its run reported it, repair included."""
    answered = review_newest_answer(check, messages[: end["answer"] + 1])
    repair = end.get("repair")
    if answered is None or repair is None or repair > end["answer"]:
        return answered
    # ANSWER_CHECK=repair sent the answer before the request back: its figures are `before`.
    first = review_newest_answer(check, messages[:repair])
    return answered if first is None else with_repair(answered, first)


def _new_turn(question: str, message: AnyMessage) -> dict[str, Any]:
    return {
        "question": question,
        "answer": "",
        "timestamp": message.response_metadata.get("timestamp"),
        "sql": None,
        "sqls": [],
        "records": None,
        "result_id": None,
    }


def _add_results(turn: dict[str, Any], message: ToolMessage) -> None:
    for artifact in result_artifacts(message):
        status = SQL_OUTCOMES.get(str(artifact.get("outcome", "ok")), "error")
        records = artifact.get("records") if status == "ok" else None
        turn["sqls"].append(
            {
                "sql": artifact.get("sql"),
                "status": status,
                "row_count": records.get("total_row_count") if records else None,
                "result_id": artifact.get("result_id") if status == "ok" else None,
            }
        )
        if status == "ok" and records is not None:
            turn["sql"], turn["records"] = artifact.get("sql"), records
            turn["result_id"] = artifact.get("result_id")

"""A conversation read back turn by turn: each question with its answer, SQL, records and chart."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage

from react_agent.graph.messages import message_text
from react_agent.results.charts import asks_for_share, build_chart
from react_agent.tools.results import result_artifacts

SQL_OUTCOMES = {"ok": "ok", "refused": "refused", "failed": "error", "rejected": "rejected"}
"""The artifact's outcome in the words the stream's `sqls` use."""


def conversation_turns(messages: list[AnyMessage]) -> list[dict[str, Any]]:
    """Return one item per question: `question`, `answer`, `sql`, `sqls`, `records`, `chart`.

    `sql` and `records` are the turn's last query that ran well (as the final data of that
    question had them), so a page reopening the conversation shows what it showed live.
    """
    turns: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, HumanMessage):
            turns.append(_new_turn(message_text(message), message))
        elif not turns:
            continue
        elif isinstance(message, AIMessage) and message_text(message):
            turns[-1]["answer"] = message_text(message)
        elif isinstance(message, ToolMessage):
            _add_results(turns[-1], message)
    for turn in turns:
        turn["chart"] = build_chart(turn["records"], share_hint=asks_for_share(turn["question"]))
    return turns


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

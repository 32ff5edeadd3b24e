"""The final data of a question, shared by the sync response and the stream's `completed` event."""

from __future__ import annotations

from typing import Any

from react_agent import AGENT_VERSION
from react_agent.results.charts import asks_for_share, build_chart
from react_agent.runs.events.events import RunResult
from react_agent.timestamps import now_timestamp


def build_final_data(
    result: RunResult,
    user_id: str,
    *,
    conversation_id_ignored: bool = False,
    timestamp: str | None = None,
) -> dict[str, Any]:
    """Return the API's final data for one run; `sql` and `records` only when SQL ran.

    `sqls` lists every run_sql of the turn (ok, refused or error), `sql` stays the last one
    that ran well, and `react_agent_meta.usage` is the turn's summed token usage (or null).

    Args:
        result: The run's result.
        user_id: Whose question it was.
        conversation_id_ignored: Whether the request's conversation_id lost to its thread_id
            (then `react_agent_meta.conversation_id_ignored` is true).
        timestamp: When the run ended (a stream's: the event's); None: now.

    """
    data: dict[str, Any] = {
        "response": result.answer,
        "conversation_id": result.thread_id,
        "user_id": user_id,
        "react_agent_meta": {
            "thread_id": result.thread_id,
            "conversation_rounds": result.conversation_rounds,
            "tools_used": result.tools_used,
            "execution_path": result.execution_path,
            "total_messages": result.total_messages,
            "sql_execution_count": result.sql_execution_count,
            "sql_refusal_count": result.sql_refusal_count,
            "usage": result.usage,
            "agent_version": AGENT_VERSION,
            "examples_used": result.examples_used,
        },
    }
    if result.instructions_used:  # absent without instructions: legacy replies unchanged
        data["react_agent_meta"]["instructions"] = result.instructions_used
    if result.verified_example_id:  # a verified example's SQL answered (VERIFIED_ANSWERS)
        data["react_agent_meta"]["verified_example_id"] = result.verified_example_id
    if conversation_id_ignored:
        data["react_agent_meta"]["conversation_id_ignored"] = True
    if result.lint:  # only when a statement drew a warning (docs/lint.md)
        data["react_agent_meta"]["lint"] = result.lint
    if result.confidence is not None:  # only when candidates were written (docs/candidates.md)
        data["react_agent_meta"]["confidence"] = _shown_confidence(result)
    if result.scope_note is not None:  # only for an empty answer under a scope
        data["react_agent_meta"]["scope_note"] = result.scope_note
    if result.trace_id is not None:  # only with tracing on (docs/observability.md)
        data["react_agent_meta"]["trace_id"] = result.trace_id
    if result.sql is not None:
        data["sql"] = result.sql
    if result.records is not None:
        data["records"] = result.records
    data["sqls"] = result.sqls
    if not result.show_sql:
        # A role without show_sql gets the answer and rows, never the SQL behind them.
        data.pop("sql", None)
        data["sqls"] = [{k: v for k, v in e.items() if k != "sql"} for e in result.sqls]
    data["chart"] = build_chart(result.records, share_hint=asks_for_share(result.question))
    if result.answer_check is not None:
        data["answer_check"] = result.answer_check
    data["timestamp"] = timestamp or now_timestamp()
    return data


def _shown_confidence(result: RunResult) -> dict[str, Any]:
    """Return the candidates' confidence; a role without show_sql sees no candidate's SQL."""
    confidence = dict(result.confidence or {})
    if not result.show_sql:
        queries = confidence.get("queries") or []
        confidence["queries"] = [{k: v for k, v in q.items() if k != "sql"} for q in queries]
    return confidence

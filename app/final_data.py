"""The final data of a question, shared by the sync response and the stream's `completed` event."""

from __future__ import annotations

from typing import Any

from react_agent import AGENT_VERSION
from react_agent.runs.runner import RunResult
from react_agent.timestamps import now_timestamp


def build_final_data(result: RunResult, user_id: str) -> dict[str, Any]:
    """Return the API's final data for one run; `sql` and `records` only when SQL ran."""
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
            "agent_version": AGENT_VERSION,
            "examples_used": result.examples_used,
        },
    }
    if result.sql is not None:
        data["sql"] = result.sql
    if result.records is not None:
        data["records"] = result.records
    data["timestamp"] = now_timestamp()
    return data

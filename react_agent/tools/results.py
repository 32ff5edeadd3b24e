"""Query results as the model sees them, and finding earlier results in a conversation."""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import ToolMessage

from react_agent.databases.records import QueryResult


def result_artifacts(message: Any) -> list[dict[str, Any]]:
    """Return the run_sql results a tool message carries, newest last.

    A run_sql message carries its own; a delegate message carries its sub-agents' results
    under `results` (react_agent/subagents), so `read_result` reads them by their ids too.
    """
    artifact = getattr(message, "artifact", None)
    if not isinstance(artifact, dict):
        return []
    if artifact.get("result_id"):
        return [artifact]
    nested = artifact.get("results")
    if not isinstance(nested, list):
        return []
    return [a for a in nested if isinstance(a, dict) and a.get("result_id")]


def find_result(messages: list[Any], result_id: str) -> dict[str, Any] | None:
    """Return the artifact of the run_sql result `result_id` in a conversation, if any."""
    for message in reversed(messages):
        for artifact in result_artifacts(message):
            if artifact["result_id"] == result_id:
                return artifact
    return None


def recent_results(messages: list[Any], count: int = 10) -> list[dict[str, Any]]:
    """Return id, SQL and row count of the newest `count` run_sql results of a conversation."""
    found: list[dict[str, Any]] = []
    for message in reversed(messages):
        for artifact in reversed(result_artifacts(message)):
            found.append(
                {
                    "result_id": artifact["result_id"],
                    "sql": artifact["sql"],
                    "rows": artifact["records"]["total_row_count"],
                }
            )
            if len(found) == count:
                return found[::-1]
    return found[::-1]


def refusal_message(
    sql: str, reason: str, tool_call_id: str, tool_name: str, rule: str | None = None
) -> ToolMessage:
    """Return the error result the model sees when the guard or the scope refused its query.

    A scope refusal names its rule (`error_type`, e.g. COLUMN_DENIED), never hidden data.
    """
    artifact = {"sql": sql, "outcome": "refused", "reason": reason}
    content = f"Error: query refused: {reason}"
    if rule is not None:
        artifact["error_type"] = rule
        content = f"Error: query refused ({rule}, 403): {reason}"
    return ToolMessage(
        content=content,
        tool_call_id=tool_call_id,
        name=tool_name,
        status="error",
        artifact=artifact,
    )


def describe_result(result: QueryResult, preview_rows: int) -> str:
    """Summarise a result for the model: the row count and the first rows as JSON lines."""
    shown = result.rows[:preview_rows]
    header = f"{result.total_row_count} row(s); columns: {', '.join(result.columns)}"
    if result.is_limited:
        header += f" (only the first {len(result.rows)} rows were fetched)"
    lines = [header, *(json_line(row) for row in shown)]
    if len(result.rows) > len(shown):
        lines.append(f"… {result.total_row_count - len(shown)} more row(s) not shown")
    return "\n".join(lines)


def json_line(row: dict[str, Any]) -> str:
    """Return a row as one line of JSON, as the model reads rows."""
    return json.dumps(row, ensure_ascii=False, default=str)

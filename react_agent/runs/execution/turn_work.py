"""What one question's run did besides answering: the statements it ran and the tokens it used."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, ToolMessage

from react_agent.tools.sql_tools import RUN_SQL

USAGE_FIELDS = {
    "prompt_tokens": "input_tokens",
    "completion_tokens": "output_tokens",
    "total_tokens": "total_tokens",
}
"""The API's usage names, and LangChain's `usage_metadata` names they come from."""

SQL_STATUSES = {"ok": "ok", "refused": "refused", "failed": "error"}
"""A run_sql artifact's outcome, and the status the API gives it."""


def _cache_read(usage: dict[str, Any]) -> int | None:
    details = usage.get("input_token_details")
    if isinstance(details, dict) and details.get("cache_read") is not None:
        return int(details["cache_read"])
    return None


class TurnWork:
    """Collects a turn's run_sql statements and model token usage from its node updates.

    Messages are counted once by id (a node may re-send one to replace it) and tool results
    once by tool_call_id.
    """

    def __init__(self) -> None:
        self.sqls: list[dict[str, Any]] = []
        self.usage_by_message: dict[str, dict[str, int]] = {}
        self.seen_results: set[str] = set()
        self.records_read: list[dict[str, Any]] = []
        """The `records` of every result the turn read (the answer check's evidence)."""
        self.lint: list[dict[str, Any]] = []
        """The SQL lint's warnings on the turn's statements (react_agent/lint)."""

    def add(self, update: Any) -> None:
        """Take one node's update into account."""
        if not isinstance(update, dict):
            return
        for message in update.get("messages") or []:
            if isinstance(message, AIMessage) and message.usage_metadata:
                key = message.id or f"unnamed-{len(self.usage_by_message)}"
                self.usage_by_message.setdefault(key, dict(message.usage_metadata))
            elif isinstance(message, ToolMessage):
                self._add_statement(message)
                self._add_tool_usage(message)

    def usage(self) -> dict[str, int] | None:
        """Return the turn's summed token usage, or None when the server reported none."""
        if not self.usage_by_message:
            return None
        usages = list(self.usage_by_message.values())
        summed = {
            name: sum(int(usage.get(source) or 0) for usage in usages)
            for name, source in USAGE_FIELDS.items()
        }
        # Only when the provider says (OpenAI's prompt_tokens_details.cached_tokens).
        cached = [_cache_read(usage) for usage in usages]
        if any(value is not None for value in cached):
            summed["cached_tokens"] = sum(value or 0 for value in cached)
        return summed

    def _add_tool_usage(self, message: ToolMessage) -> None:
        # A delegate result carries its sub-agents' summed usage (react_agent/subagents).
        artifact = message.artifact
        if isinstance(artifact, dict) and isinstance(artifact.get("usage_metadata"), dict):
            key = f"tool:{message.tool_call_id}"
            self.usage_by_message.setdefault(key, dict(artifact["usage_metadata"]))

    def _add_statement(self, message: ToolMessage) -> None:
        artifact = message.artifact
        if not isinstance(artifact, dict) or message.tool_call_id in self.seen_results:
            return
        if message.name != RUN_SQL:
            # A delegate result lists its sub-agents' statements, each marked with its
            # `subagent` (react_agent/subagents).
            if isinstance(artifact.get("sqls"), list):
                self.seen_results.add(message.tool_call_id)
                self.sqls.extend(dict(entry) for entry in artifact["sqls"])
                self.records_read += [
                    r["records"] for r in artifact.get("results") or [] if r.get("records")
                ]
            return
        self.seen_results.add(message.tool_call_id)
        self.lint += [dict(w) for w in artifact.get("lint") or [] if isinstance(w, dict)]
        status = SQL_STATUSES.get(str(artifact.get("outcome")), "error")
        records = artifact.get("records") if status == "ok" else None
        if records:
            self.records_read.append(records)
        self.sqls.append(
            {
                "sql": artifact.get("sql"),
                "row_count": records["total_row_count"] if records else None,
                "result_id": artifact.get("result_id") if status == "ok" else None,
                "status": status,
            }
        )

"""The run's tool events: the model asking for a tool, and the tool's result, from node updates."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage

from react_agent.timestamps import now_timestamp
from react_agent.tools.sql_tools import CHECK_SQL, RUN_SQL

SQL_TOOLS = (RUN_SQL, CHECK_SQL)
"""Tools whose `sql` argument the tool_call event shows on its own."""


@dataclass(frozen=True)
class ToolCalled:
    """The model asked for a tool (once per tool_call_id)."""

    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    sql: str | None
    step: int
    timestamp: str
    subagent: dict[str, str] | None = None
    """`{id, description}` when a sub-agent called the tool (react_agent/subagents)."""
    auto: bool = False
    """The service ran the tool itself, before the model's first call (the memory's search)."""


@dataclass(frozen=True)
class ToolReturned:
    """A tool's result came back (once per tool_call_id).

    `status` is ok, refused (the SQL guard said no) or error; the row fields are set only
    for a run_sql that returned rows, and `rows` are the preview rows the model saw.
    """

    tool_call_id: str
    tool_name: str
    status: str
    error: str | None
    row_count: int | None
    columns: list[str] | None
    rows: list[dict[str, Any]] | None
    is_limited: bool | None
    result_id: str | None
    duration_ms: int | None
    step: int
    timestamp: str
    subagent: dict[str, str] | None = None
    """`{id, description}` when a sub-agent called the tool (react_agent/subagents)."""
    auto: bool = False
    """The service ran the tool itself, before the model's first call (the memory's search)."""
    example_ids: list[str] | None = None
    """Ids of the stored examples and notes a memory search found (its `examples_used`)."""
    rejected: bool = False
    """A person rejected the query at approval (its status stays error for older clients)."""


ToolEvent = ToolCalled | ToolReturned


class ToolEventTracker:
    """Turns one run's node updates into tool events, each call and result exactly once.

    It measures `duration_ms` from the moment it saw a call to the moment it saw the result.

    Args:
        clock: Monotonic seconds (the default is `time.monotonic`).

    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.called_at: dict[str, float] = {}
        self.returned: set[str] = set()

    def events_for(self, update: Any, step: int) -> list[ToolEvent]:
        """Return the tool events one node's update brings, in message order.

        Args:
            update: The node's update (a dict with `messages`, or anything else).
            step: The node's step number in the run.

        """
        if not isinstance(update, dict):
            return []
        events: list[ToolEvent] = []
        for message in update.get("messages") or []:
            if isinstance(message, AIMessage):
                events.extend(self._calls(message, step))
            elif isinstance(message, ToolMessage) and message.tool_call_id not in self.returned:
                self.returned.add(message.tool_call_id)
                events.append(self._result(message, step))
        return events

    def _calls(self, message: AIMessage, step: int) -> list[ToolCalled]:
        # A node may re-send the model's message (same id, tidied arguments): not a new call.
        calls = [
            (call["id"] or "", call["name"] or "", call.get("args") or {})
            for call in message.tool_calls
        ]
        calls += [(c["id"] or "", c["name"] or "", {}) for c in message.invalid_tool_calls]
        events = []
        for call_id, name, args in calls:
            if call_id in self.called_at:
                continue
            self.called_at[call_id] = self.clock()
            sql = args.get("sql") if name in SQL_TOOLS else None
            events.append(
                ToolCalled(
                    tool_call_id=call_id,
                    tool_name=name,
                    args=dict(args),
                    sql=sql if isinstance(sql, str) else None,
                    step=step,
                    timestamp=now_timestamp(),
                )
            )
        return events

    def _result(self, message: ToolMessage, step: int) -> ToolReturned:
        started = self.called_at.get(message.tool_call_id)
        duration = None if started is None else round((self.clock() - started) * 1000)
        artifact = message.artifact if isinstance(message.artifact, dict) else {}
        status, error = result_status(message, artifact)
        records = artifact.get("records") if status == "ok" else None
        shown = artifact.get("preview_row_count")
        example_ids = artifact.get("examples_used")
        return ToolReturned(
            tool_call_id=message.tool_call_id,
            tool_name=message.name or "",
            status=status,
            error=error,
            row_count=records["total_row_count"] if records else None,
            columns=list(records["columns"]) if records else None,
            rows=list(records["rows"][:shown] if shown is not None else records["rows"])
            if records
            else None,
            is_limited=records["is_limited"] if records else None,
            result_id=artifact.get("result_id"),
            duration_ms=duration,
            step=step,
            timestamp=now_timestamp(),
            example_ids=list(example_ids) if isinstance(example_ids, list) else None,
            rejected=artifact.get("outcome") == "rejected",
        )


def result_status(message: ToolMessage, artifact: dict[str, Any]) -> tuple[str, str | None]:
    """Return a tool result's status (ok, refused, error) and its reason or error text."""
    outcome = artifact.get("outcome")
    if outcome == "refused":
        return "refused", str(artifact.get("reason") or "")
    if outcome == "failed":
        return "error", str(artifact.get("error") or "")
    text = message.content if isinstance(message.content, str) else str(message.content)
    # Tools report some failures as plain text ("Error: …") rather than an error status.
    if message.status == "error" or text.startswith("Error:"):
        return "error", text.removeprefix("Error:").strip()
    return "ok", None

"""The approve_sql node: it stops the run before each run_sql call until a person decides.

It sits between prepare_tool_input and tools, and only when the run asks for approval
(`approve_sql` in the run's context, graph/run_context). Each pass asks about one call with
LangGraph's `interrupt()`, so every decision is its own checkpoint: a resumed run re-runs
only this small node (never a tool), and a run with several queries stops once per query.
The tools then run through `Send`, so a rejected call, already answered here, never runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, ToolMessage
from langgraph.types import Send, interrupt

from react_agent.approval.decisions import SQL_APPROVAL_KIND, tables_read
from react_agent.graph.node_names import APPROVE_SQL, TOOLS, UPDATE_STATE_AFTER_TOOL
from react_agent.graph.run_context import run_context
from react_agent.graph.state import AgentState
from react_agent.guard.sql_guard import QueryRejected, check_query
from react_agent.tools.sql_tools import RUN_SQL, QueryReporter


def rejection_message(call: dict[str, Any], comment: str | None) -> ToolMessage:
    """Return the run_sql result the model reads when a person rejected its query."""
    said = f" Their comment: {comment.strip()}" if comment and comment.strip() else ""
    return ToolMessage(
        content=(
            "Error: the person reviewing the SQL rejected this query, so it did not run."
            f"{said} Answer without it, or propose a different query."
        ),
        tool_call_id=call["id"] or "",
        name=RUN_SQL,
        status="error",
        artifact={"sql": call["args"].get("sql"), "outcome": "rejected", "comment": comment},
    )


@dataclass(frozen=True)
class SqlApproval:
    """The approval node and its routers, over one database's dialect and allowed tables.

    Args:
        dialect: The sqlglot dialect edits are checked in.
        allowed_tables: The tables the SQL may read (None for all), as the guard uses them.
        report_query: Told of each query a person rejected, and of each edit the guard
            refused (for the run's listeners); None tells no one.

    """

    dialect: str
    allowed_tables: frozenset[str] | None = None
    report_query: QueryReporter | None = None

    def route_after_prepare(self, state: AgentState) -> str:
        """Go to approve_sql when the run asks for approval and a query awaits it."""
        if run_context().approve_sql and self.undecided_calls(state):
            return APPROVE_SQL
        return TOOLS

    async def approve_sql(self, state: AgentState) -> dict[str, Any]:
        """Stop for a person's decision on the next query, then apply it."""
        call = self.undecided_calls(state)[0]
        sql = call["args"]["sql"]
        approval = state.get("sql_approval") or {}
        payload: dict[str, Any] = {
            "kind": SQL_APPROVAL_KIND,
            "tool_call_id": call["id"],
            "sql": sql,
            "tables": tables_read(sql, self.dialect),
        }
        refused = approval.get("refused_edit")
        if refused and refused.get("tool_call_id") == call["id"]:
            payload["refused_edit"] = {"sql": refused["sql"], "reason": refused["reason"]}
        # On resume the node runs again from the top and this returns the person's answer.
        answer = interrupt(payload)
        return self._apply(state, call, answer if isinstance(answer, dict) else {})

    def route_after_approval(self, state: AgentState) -> str | list[Send]:
        """Ask about the next query, or run the calls not rejected, or go on without tools."""
        if self.undecided_calls(state):
            return APPROVE_SQL
        calls = _unanswered_calls(state["messages"])
        if not calls:
            return UPDATE_STATE_AFTER_TOOL
        return [
            Send(TOOLS, {"__type": "tool_call_with_context", "tool_call": call, "state": state})
            for call in calls
        ]

    def undecided_calls(self, state: AgentState) -> list[dict[str, Any]]:
        """Return the run_sql calls of the model's last turn still waiting for a person.

        Queries the guard refuses are left to run_sql, which refuses them as usual: a person
        is asked only about SQL that could run.
        """
        approved = set((state.get("sql_approval") or {}).get("approved", []))
        return [
            call
            for call in _unanswered_calls(state["messages"])
            if call["name"] == RUN_SQL and call["id"] not in approved and self._passes(call)
        ]

    def _passes(self, call: dict[str, Any]) -> bool:
        sql = call["args"].get("sql")
        if not isinstance(sql, str):
            return False
        try:
            check_query(sql, self.dialect, self.allowed_tables)
        except QueryRejected:
            return False
        return True

    def _apply(
        self, state: AgentState, call: dict[str, Any], answer: dict[str, Any]
    ) -> dict[str, Any]:
        approval = state.get("sql_approval") or {}
        approved = list(approval.get("approved", []))
        action = answer.get("action")
        if action not in ("approve", "edit"):
            # Reject, or (failing closed) an answer that is no decision at all.
            if self.report_query is not None:
                reason = answer.get("comment") or "rejected at approval"
                sql = call["args"].get("sql") or ""
                self.report_query(sql, None, self.dialect, "rejected", 0.0, reason=reason)
            return {
                "messages": [rejection_message(call, answer.get("comment"))],
                "sql_approval": {"approved": approved, "refused_edit": None},
            }
        update: dict[str, Any] = {}
        if action == "edit":
            sql = str(answer.get("sql") or "").strip().rstrip(";").strip()
            try:
                check_query(sql, self.dialect, self.allowed_tables)
            except QueryRejected as exc:
                # Counted like any refused query; the same call waits for a person again.
                if self.report_query is not None:
                    self.report_query(sql, None, self.dialect, "refused", 0.0, reason=exc.reason)
                refused = {"tool_call_id": call["id"], "sql": sql, "reason": exc.reason}
                return {
                    "sql_approval": {"approved": approved, "refused_edit": refused},
                    "sql_refusal_count": state.get("sql_refusal_count", 0) + 1,
                }
            update["messages"] = [_with_sql(_last_ai_message(state["messages"]), call["id"], sql)]
        update["sql_approval"] = {"approved": [*approved, call["id"]], "refused_edit": None}
        return update


def _last_ai_message(messages: Sequence[AnyMessage]) -> AIMessage:
    for message in reversed(messages):
        if isinstance(message, AIMessage):
            return message
    raise ValueError("no model turn to approve")


def _unanswered_calls(messages: Sequence[AnyMessage]) -> list[dict[str, Any]]:
    """Return the tool calls of the model's last turn that have no result yet."""
    answered = set()
    for message in reversed(messages):
        if isinstance(message, ToolMessage):
            answered.add(message.tool_call_id)
            continue
        if isinstance(message, AIMessage):
            return [dict(call) for call in message.tool_calls if call["id"] not in answered]
        return []
    return []


def _with_sql(message: AIMessage, call_id: str, sql: str) -> AIMessage:
    """Return the model's turn with one call's SQL replaced (same id, so it replaces it)."""
    calls = [
        {**call, "args": {**call["args"], "sql": sql}} if call["id"] == call_id else call
        for call in message.tool_calls
    ]
    return message.model_copy(update={"tool_calls": calls})

"""The graph's nodes and its router."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, SystemMessage, ToolMessage
from langchain_core.runnables import RunnableConfig

from config import localize
from react_agent.graph.messages import (
    message_text,
    requests_tools,
    stamped,
    unanswered_tool_results,
    visible_messages,
)
from react_agent.graph.node_names import FORMAT_FINAL_RESPONSE, PREPARE_TOOL_INPUT
from react_agent.graph.prompts import SYSTEM_PROMPT
from react_agent.graph.state import AgentState
from react_agent.graph.trimming import select_context_start
from react_agent.tools.results import recent_results
from react_agent.tools.sql_tools import RUN_SQL

STEPS_PER_TOOL_ROUND = 4
"""prepare_tool_input, tools, update_state_after_tool and agent again."""


@dataclass
class AgentNodes:
    """Node functions bound to one model and one set of settings.

    Args:
        model: The chat model, already bound to the tools.
        dialect: The database's SQL dialect, told to the model.
        tables: Names of the tables, told to the model.
        max_turns: Most recent turns the model sees.
        max_tokens: Approximate token budget of what the model sees.
        row_limit: Row cap of query results, told to the model.
        preview_rows: Rows of a result the model sees.
        language_hint: Extra instruction for the system prompt.

    """

    model: Any
    dialect: str
    tables: Sequence[str]
    max_turns: int
    max_tokens: int
    row_limit: int
    preview_rows: int
    language_hint: str = ""

    async def trim_messages(self, state: AgentState) -> dict[str, Any]:
        """Choose the whole turns the model will see, within the turn and token budgets."""
        messages = state["messages"]
        start = select_context_start(messages, max_turns=self.max_turns, max_tokens=self.max_tokens)
        return {"context_start_id": messages[start].id}

    async def call_model(self, state: AgentState, config: RunnableConfig) -> dict[str, Any]:
        """Ask the model for its next step: tool calls, or the answer."""
        prompt = SYSTEM_PROMPT.format(
            dialect=self.dialect,
            preview_rows=self.preview_rows,
            row_limit=self.row_limit,
            language_hint=self.language_hint,
            tables=", ".join(self.tables) or "(none)",
            results="; ".join(
                f"{r['result_id']} ({r['rows']} rows): {r['sql'][:200]}"
                for r in recent_results(state["messages"])
            )
            or "(none)",
            now=datetime.now().astimezone().isoformat(timespec="seconds"),
        )
        context = visible_messages(state["messages"], state.get("context_start_id"))
        response = await self.model.ainvoke([SystemMessage(prompt), *context], config)
        return {"messages": [stamped(response)]}

    async def prepare_tool_input(self, state: AgentState) -> dict[str, Any]:
        """Tidy the SQL, note the tools about to run, and reject calls with broken JSON.

        A call whose arguments are not valid JSON gets an error result the model can
        correct; the tools node runs only the others.
        """
        message = state["messages"][-1]
        assert isinstance(message, AIMessage)
        calls = [_tidy_tool_call(call) for call in message.tool_calls]
        update: dict[str, Any] = {"pending_tools": [call["name"] for call in calls]}
        messages: list[AnyMessage] = []
        if calls != message.tool_calls:
            # Same id: add_messages replaces the message instead of appending it.
            messages.append(message.model_copy(update={"tool_calls": calls}))
        # The tools node runs only the parseable calls; every call needs a result.
        messages.extend(_invalid_call_results(message))
        if messages:
            update["messages"] = messages
        return update

    async def update_state_after_tool(self, state: AgentState) -> dict[str, Any]:
        """Record the tools that ran and the SQL results of this round."""
        results = _trailing_tool_messages(state["messages"])
        update: dict[str, Any] = {
            "pending_tools": [],
            "tools_used": [*state.get("tools_used", []), *(m.name or "" for m in results)],
            "sql_execution_count": state.get("sql_execution_count", 0),
            "sql_refusal_count": state.get("sql_refusal_count", 0),
        }
        for message in results:
            artifact = message.artifact if isinstance(message.artifact, dict) else None
            if artifact is not None and artifact.get("outcome") == "refused":
                update["sql_refusal_count"] += 1
            if artifact is not None and isinstance(artifact.get("sqls"), list):
                # A delegate result: its sub-agents' statements count too (react_agent/subagents).
                statuses = [entry.get("status") for entry in artifact["sqls"]]
                update["sql_execution_count"] += sum(s in ("ok", "error") for s in statuses)
                update["sql_refusal_count"] += statuses.count("refused")
            if message.name != RUN_SQL or artifact is None:
                continue
            if artifact.get("outcome") in ("ok", "failed"):
                update["sql_execution_count"] += 1
            if artifact.get("outcome") == "ok":
                update["sql"] = artifact["sql"]
                update["records"] = artifact["records"]
        return update

    async def format_final_response(
        self, state: AgentState, config: RunnableConfig
    ) -> dict[str, Any]:
        """Fix the answer text; when the step limit cut the run short, say so plainly."""
        last = state["messages"][-1]
        if requests_tools(last):
            lang = config.get("configurable", {}).get("lang")
            answer = localize("STEP_LIMIT_ANSWER", lang)
            closing = [
                *unanswered_tool_results(state["messages"], "Not run: the step limit was reached."),
                AIMessage(answer),
            ]
            closing = [stamped(message) for message in closing]
            return {"messages": closing, "final_answer": answer, "pending_tools": []}
        text = message_text(last)
        # Kept as the model wrote it, so streamed tokens add up to exactly this answer.
        if not text.strip():
            text = localize("EMPTY_ANSWER", config.get("configurable", {}).get("lang"))
            # Same id, so it replaces the empty message: the history shows what the client
            # got, and the model is never sent an empty assistant message.
            return {"final_answer": text, "messages": [last.model_copy(update={"content": text})]}
        return {"final_answer": text}

    def route_model_output(self, state: AgentState) -> str:
        """Go on to the tools when the model asked for them and steps remain; else answer."""
        last = state["messages"][-1]
        if not requests_tools(last):
            return FORMAT_FINAL_RESPONSE
        if state["remaining_steps"] <= STEPS_PER_TOOL_ROUND + 1:
            return FORMAT_FINAL_RESPONSE
        return PREPARE_TOOL_INPUT


def _trailing_tool_messages(messages: Sequence[AnyMessage]) -> list[ToolMessage]:
    results: list[ToolMessage] = []
    for message in reversed(messages):
        if not isinstance(message, ToolMessage):
            break
        results.append(message)
    return results[::-1]


def _invalid_call_results(message: AIMessage) -> list[ToolMessage]:
    return [
        ToolMessage(
            content=(
                f"Error: the arguments of this {call['name']} call are not valid JSON, so it "
                "did not run. Call it again with its arguments as one JSON object."
            ),
            tool_call_id=call["id"] or "",
            name=call["name"] or "",
            status="error",
        )
        for call in message.invalid_tool_calls
    ]


def _tidy_tool_call(call: dict[str, Any]) -> dict[str, Any]:
    args = call.get("args") or {}
    sql = args.get("sql")
    if isinstance(sql, str):
        tidy = sql.strip().rstrip(";").strip()
        if tidy != sql:
            return {**call, "args": {**args, "sql": tidy}}
    return call

"""A round of tools around the tools node: the calls vetted before, the results tallied after."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, ToolMessage

from react_agent.graph.nodes.tool_calls import vet_model_calls
from react_agent.graph.state import AgentState
from react_agent.tools.sql_tools import RUN_SQL


def tool_input(state: AgentState) -> dict[str, Any]:
    """Note the tools about to run, and answer the calls that cannot run (nodes/tool_calls)."""
    message = state["messages"][-1]
    assert isinstance(message, AIMessage)
    vetted, answers = vet_model_calls(message)
    update: dict[str, Any] = {"pending_tools": [call["name"] for call in vetted.tool_calls]}
    messages: list[AnyMessage] = [vetted] if vetted is not message else []
    # The tools node runs only the runnable calls; every call needs a result.
    messages.extend(answers)
    if messages:
        update["messages"] = messages
    return update


def state_after_tool(state: AgentState) -> dict[str, Any]:
    """Return the tools that ran and the SQL results of this round, tallied into the state."""
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
        if artifact is not None and artifact.get("examples_used"):
            update["examples_used"] = [
                *update.get("examples_used", state.get("examples_used", [])),
                *artifact["examples_used"],
            ]
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


def _trailing_tool_messages(messages: Sequence[AnyMessage]) -> list[ToolMessage]:
    results: list[ToolMessage] = []
    for message in reversed(messages):
        if not isinstance(message, ToolMessage):
            break
        results.append(message)
    return results[::-1]

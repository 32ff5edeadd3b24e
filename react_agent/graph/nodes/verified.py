"""A question a verified example answers: the example's SQL runs without the model writing SQL.

At a question's first model call the verified source (react_agent/memory/retrieval/verified, given
through graph/hooks.VerifiedSource) is asked for a match; a match becomes a run_sql call
made here, not by the model, which then goes the usual way: the approval pause, the guard
and the asker's scope in run_sql, a refusal or an error back as a tool result. After it
ran, the model phrases the answer (one call), or with VERIFIED_ANSWERS=direct the answer is
a fixed sentence over the rows (no call). A failed verified query leaves the question to
the model, which reads the failure as any other tool result.
"""

from __future__ import annotations

import uuid
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from config import localize
from react_agent.graph.hooks import VerifiedSource
from react_agent.graph.messages import message_text, stamped
from react_agent.graph.model_input.prompts import VERIFIED_DIRECT_ANSWER
from react_agent.graph.run_context import run_context
from react_agent.graph.state import AgentState
from react_agent.tools.sql_tools import RUN_SQL

CALL_PREFIX = "verified_"
"""The id of a run_sql call made for a verified example starts with this."""


async def verified_step(source: VerifiedSource, state: AgentState) -> dict[str, Any]:
    """Return the state a verified example sets at this model call; {} to ask the model.

    With "messages" in it, the step replaces the model's call (the example's run_sql
    call, or the direct answer); without, it is merged into the model call's update.
    """
    messages = state["messages"]
    last = messages[-1] if messages else None
    if isinstance(last, HumanMessage):
        match = await source.match(message_text(last))
        if match is None:
            return {}
        call = {"name": RUN_SQL, "args": {"sql": match.sql}, "id": CALL_PREFIX + _token()}
        return {
            "messages": [stamped(AIMessage(content="", tool_calls=[call]))],
            "verified_example_id": match.example_id,
        }
    if not state.get("verified_example_id") or not _answers_verified_call(last):
        return {}
    assert isinstance(last, ToolMessage)
    artifact = last.artifact if isinstance(last.artifact, dict) else {}
    if artifact.get("outcome") != "ok":
        return {"verified_example_id": None}  # refused or failed: the model takes over
    if not source.direct:
        return {}
    rows = (artifact.get("records") or {}).get("total_row_count", 0)
    answer = localize(VERIFIED_DIRECT_ANSWER, run_context().lang, rows=rows)
    return {"messages": [stamped(AIMessage(content=answer))]}


def _answers_verified_call(message: Any) -> bool:
    return (
        isinstance(message, ToolMessage)
        and message.name == RUN_SQL
        and str(message.tool_call_id).startswith(CALL_PREFIX)
    )


def _token() -> str:
    return uuid.uuid4().hex[:16]

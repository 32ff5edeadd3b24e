"""Reading a thread's pending SQL approval, checking a resume against it, closing it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, AnyMessage
from langgraph.types import Interrupt, StateSnapshot

from config import localize
from react_agent.approval.decisions import SQL_APPROVAL_KIND, ApprovalDecision
from react_agent.approval.node import rejection_message
from react_agent.errors import ServiceError
from react_agent.graph.messages import stamped, unanswered_tool_results
from react_agent.tools.sql_tools import RUN_SQL

INTERRUPT_UPDATE = "__interrupt__"
"""Key of the update `astream(stream_mode="updates")` yields when the graph interrupts."""

SUPERSEDED_COMMENT = "the person asked a new question instead of deciding"


def describe_interrupt(interrupts: Sequence[Interrupt]) -> dict[str, Any] | None:
    """Return the first SQL approval among `interrupts` as clients see it, or None.

    The result holds `interrupt_id` (what a resume names), `kind`, `sql`, `tables`,
    `tool_call_id` and, after a refused edit, `refused_edit` with the SQL and the reason.
    """
    for item in interrupts:
        value = item.value
        if isinstance(value, dict) and value.get("kind") == SQL_APPROVAL_KIND:
            return {"interrupt_id": item.id, **value}
    return None


def pending_approval(snapshot: StateSnapshot) -> dict[str, Any] | None:
    """Return the SQL approval a thread waits for (see describe_interrupt), or None."""
    return describe_interrupt(snapshot.interrupts)


def check_resume(snapshot: StateSnapshot, decision: ApprovalDecision, thread_id: str) -> None:
    """Raise 409 unless `decision` answers the approval the thread waits for right now.

    Raises:
        ServiceError: 409 NOT_AWAITING_APPROVAL when nothing waits; 409 STALE_INTERRUPT
            when another (newer) interrupt waits, whose id the error carries.

    """
    pending = pending_approval(snapshot)
    if pending is None:
        raise ServiceError(
            409,
            "NOT_AWAITING_APPROVAL",
            f"thread {thread_id} is not waiting for an SQL approval",
            can_retry=False,
            thread_id=thread_id,
        )
    if pending["interrupt_id"] != decision.interrupt_id:
        raise ServiceError(
            409,
            "STALE_INTERRUPT",
            f"interrupt {decision.interrupt_id} is no longer pending on thread {thread_id}; "
            f"the pending one is {pending['interrupt_id']}",
            can_retry=False,
            thread_id=thread_id,
            interrupt_id=pending["interrupt_id"],
        )


def close_pending_approval(messages: Sequence[AnyMessage], lang: str | None) -> list[AnyMessage]:
    """Return messages that close a turn left waiting for approval, for a new question.

    The queries waiting are rejected (the model reads why), other calls get a "not run"
    result, and an answer says the SQL was not approved.
    """
    last = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
    if last is None:
        return []
    answered = {getattr(m, "tool_call_id", None) for m in messages[messages.index(last) :]}
    rejected: list[AnyMessage] = [
        rejection_message(dict(call), SUPERSEDED_COMMENT)
        for call in last.tool_calls
        if call["name"] == RUN_SQL and call["id"] not in answered
    ]
    closing = [
        *rejected,
        *unanswered_tool_results([*messages, *rejected], "Not run: a new question came first."),
        AIMessage(localize("APPROVAL_SUPERSEDED_ANSWER", lang)),
    ]
    return [stamped(message) for message in closing]

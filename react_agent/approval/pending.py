"""A thread's pending pause (SQL approval or clarification): reading, checking, closing it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, AnyMessage
from langgraph.types import Interrupt, StateSnapshot

from config import localize
from react_agent.approval.decisions import (
    ACTIONS_BY_KIND,
    CLARIFICATION_KIND,
    PAUSE_KINDS,
    ApprovalDecision,
)
from react_agent.approval.node import rejection_message
from react_agent.errors import ServiceError
from react_agent.graph.messages import stamped, unanswered_tool_results
from react_agent.tools.sql_tools import RUN_SQL

INTERRUPT_UPDATE = "__interrupt__"
"""Key of the update `astream(stream_mode="updates")` yields when the graph interrupts."""

SUPERSEDED_COMMENT = "the person asked a new question instead of deciding"


def describe_interrupt(interrupts: Sequence[Interrupt]) -> dict[str, Any] | None:
    """Return the first pause among `interrupts` as clients see it, or None.

    The result holds `interrupt_id` (what a resume names), `kind` and `tool_call_id`; an
    SQL approval adds `sql`, `tables` and, after a refused edit, `refused_edit` with the
    SQL and the reason; a clarification adds `question` and `options`.
    """
    for item in interrupts:
        value = item.value
        if isinstance(value, dict) and value.get("kind") in PAUSE_KINDS:
            return {"interrupt_id": item.id, **value}
    return None


def pending_approval(snapshot: StateSnapshot) -> dict[str, Any] | None:
    """Return the pause a thread waits for (see describe_interrupt), or None."""
    return describe_interrupt(snapshot.interrupts)


def check_resume(snapshot: StateSnapshot, decision: ApprovalDecision, thread_id: str) -> None:
    """Raise 409 unless `decision` answers the approval the thread waits for right now.

    Raises:
        ServiceError: 409 NOT_AWAITING_APPROVAL when nothing waits; 409 STALE_INTERRUPT
            when another (newer) interrupt waits, whose id the error carries; 400
            RESUME_INVALID when the action does not answer that kind of pause.

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
    if decision.kind != pending["kind"]:  # e.g. an answer to waiting SQL
        allowed = ", ".join(ACTIONS_BY_KIND[pending["kind"]])
        reason = f"resume.action: {pending['kind']} is answered with {allowed}"
        raise ServiceError(400, "RESUME_INVALID", reason, can_retry=False, reason=reason)


def close_pending_approval(
    messages: Sequence[AnyMessage], lang: str | None, kind: str | None = None
) -> list[AnyMessage]:
    """Return messages that close a turn left paused, for a new question.

    The queries waiting are rejected (the model reads why), other calls (a clarifying
    question too) get a "not run" result, and an answer says the SQL was not approved or
    the question was not answered.
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
        AIMessage(
            localize(
                "CLARIFICATION_SUPERSEDED_ANSWER"
                if kind == CLARIFICATION_KIND
                else "APPROVAL_SUPERSEDED_ANSWER",
                lang,
            )
        ),
    ]
    return [stamped(message) for message in closing]

"""The data of a run that paused for a person (SQL approval or a clarifying question)."""

from __future__ import annotations

from typing import Any

from app.asking.replies.final_data import build_final_data
from app.asking.replies.guard_reasons import guard_reason_for_people
from config import localize
from react_agent.approval.decisions import CLARIFICATION_KIND
from react_agent.runs.events.events import RunResult

AWAITING_APPROVAL = "awaiting_approval"
"""`data.status` of an answer (and `/status` of a thread) waiting for a person's decision."""
AWAITING_CLARIFICATION = "awaiting_clarification"
"""`data.status` of an answer (and `/status` of a thread) waiting for a person's answer."""


def pause_status(pause: dict[str, Any]) -> str:
    """Return the status of a thread paused at `pause` (awaiting approval or an answer)."""
    return AWAITING_CLARIFICATION if pause["kind"] == CLARIFICATION_KIND else AWAITING_APPROVAL


def approval_fields(approval: dict[str, Any], thread_id: str, lang: str) -> dict[str, Any]:
    """Return what a client needs to show a pending pause and answer it."""
    if approval["kind"] == CLARIFICATION_KIND:
        return {
            "status": AWAITING_CLARIFICATION,
            "kind": CLARIFICATION_KIND,
            "interrupt_id": approval["interrupt_id"],
            "question": approval["question"],
            "options": approval.get("options") or [],
            "tool_call_id": approval["tool_call_id"],
            "thread_id": thread_id,
            "message": localize("CLARIFICATION_WAITING", lang),
        }
    fields = {
        "status": AWAITING_APPROVAL,
        "kind": approval["kind"],
        "interrupt_id": approval["interrupt_id"],
        "sql": approval["sql"],
        "tables": approval["tables"],
        "tool_call_id": approval["tool_call_id"],
        "thread_id": thread_id,
        "message": localize("SQL_APPROVAL_WAITING", lang),
    }
    if approval.get("refused_edit"):
        refused = dict(approval["refused_edit"])
        # A new key: `reason` stays the guard's own words, `message` is for the person.
        refused["message"] = guard_reason_for_people(str(refused.get("reason") or ""), lang)
        fields["refused_edit"] = refused
    return fields


def build_awaiting_approval_data(
    result: RunResult, user_id: str, lang: str, *, timestamp: str | None = None
) -> dict[str, Any]:
    """Return the final data of a run that paused, with what it waits for.

    The usual fields stay (conversation_id, user_id, react_agent_meta…). For an SQL
    approval `sql` is the SQL waiting, not one that ran, and `records` are absent as nothing
    ran yet; for a clarification `response` is the question (an older client shows it).
    `timestamp` is when the run paused (None: now).
    """
    assert result.approval is not None
    data = build_final_data(result, user_id, timestamp=timestamp)
    data.pop("records", None)
    fields = approval_fields(result.approval, result.thread_id, lang)
    response = fields.get("question") or fields["message"]
    data.update(fields, response=response)
    return data

"""The data of a run that stopped for SQL approval: the sync answer and the interrupt event."""

from __future__ import annotations

from typing import Any

from app.asking.final_data import build_final_data
from app.asking.guard_reasons import guard_reason_for_people
from config import localize
from react_agent.runs.events import RunResult

AWAITING_APPROVAL = "awaiting_approval"
"""`data.status` of an answer (and `/status` of a thread) waiting for a person's decision."""


def approval_fields(approval: dict[str, Any], thread_id: str, lang: str) -> dict[str, Any]:
    """Return what a client needs to show a pending approval and answer it."""
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


def build_awaiting_approval_data(result: RunResult, user_id: str, lang: str) -> dict[str, Any]:
    """Return the final data of a run that stopped for approval, with the pending SQL.

    The usual fields stay (conversation_id, user_id, react_agent_meta…); `sql` is the SQL
    waiting, not one that ran, and `records` are absent as nothing ran yet.
    """
    assert result.approval is not None
    data = build_final_data(result, user_id)
    data.pop("records", None)
    fields = approval_fields(result.approval, result.thread_id, lang)
    data.update(fields, response=fields["message"])
    return data

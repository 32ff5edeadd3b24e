"""Putting a paused run to the person through the MCP host (elicitation/create).

A host that declared the elicitation capability shows the person the clarifying question
(its options numbered) or the SQL waiting for approval, with a small form; the answer
becomes the resume. A host without it gets the pause as the tool's result instead.
"""

from __future__ import annotations

from typing import Any, Literal

from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field

from app.mcp.tools import PersonAsker
from app.openai_compat.pauses import pause_markdown
from react_agent.approval.decisions import CLARIFICATION_KIND, ApprovalDecision


class ClarificationReply(BaseModel):
    """The person's answer to a clarifying question."""

    answer: str = Field(description="Your answer, or the number of one of the options.")


class ApprovalReply(BaseModel):
    """The person's decision on SQL waiting for approval."""

    decision: Literal["approve", "reject", "edit"] = Field(
        description="approve: run it; reject: do not; edit: run `sql` instead."
    )
    sql: str = Field(default="", description="The edited SQL (edit only).")
    comment: str = Field(default="", description="Why, for the agent to read.")


def person_asker(ctx: Context, lang: str) -> PersonAsker | None:
    """Return how to ask the person through this host, or None when it cannot elicit."""
    capabilities = ctx.request_context.session.client_capabilities
    if capabilities is None or capabilities.elicitation is None:
        return None

    async def ask_person(pause: dict[str, Any]) -> ApprovalDecision | None:
        message = pause_markdown(pause, lang)
        if pause["kind"] == CLARIFICATION_KIND:
            reply = await ctx.elicit(message, ClarificationReply)
            if reply.action != "accept":
                return None
            return ApprovalDecision(
                pause["interrupt_id"], "answer", text=_chosen(reply.data.answer, pause)
            )
        decision = await ctx.elicit(message, ApprovalReply)
        if decision.action == "decline":
            return ApprovalDecision(pause["interrupt_id"], "reject", comment="declined")
        if decision.action != "accept":
            return None
        data = decision.data
        sql = data.sql.strip().rstrip(";").strip() if data.decision == "edit" else None
        if data.decision == "edit" and not sql:
            return None
        return ApprovalDecision(
            pause["interrupt_id"], data.decision, sql=sql, comment=data.comment.strip() or None
        )

    return ask_person


def _chosen(answer: str, pause: dict[str, Any]) -> str:
    options = pause.get("options") or []
    reply = answer.strip()
    if reply.isdigit() and 1 <= int(reply) <= len(options):
        return options[int(reply) - 1]
    return reply

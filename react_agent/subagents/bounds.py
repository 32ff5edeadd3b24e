"""How many sub-questions delegate may hand out: per call, per question, and the asker's quota."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

DELEGATE = "delegate"


class SubquestionQuota(Protocol):
    """Counts each sub-question against the asker's question quota (react_agent/quotas)."""

    async def take(self) -> str | None:
        """Count one sub-question of the running question; the reason when over a quota."""


@dataclass(frozen=True)
class DelegateLimits:
    """The most tasks one delegate call takes, and the most one question hands out in all."""

    max_tasks: int = 5
    max_per_question: int = 10


def delegated_before(state: Mapping[str, Any], tool_call_id: str, max_tasks: int) -> int:
    """Return the sub-questions this question handed out before the call `tool_call_id`.

    Counted in the question's turn (the messages after its last HumanMessage): those that
    earlier delegate calls started (their result's `started`), and the tasks of the
    delegate calls before this one in the same model message, which run beside it (a
    call of more than `max_tasks` tasks is refused whole, so it counts none).
    """
    messages = list(state.get("messages") or [])
    starts = [n for n, message in enumerate(messages) if isinstance(message, HumanMessage)]
    turn = messages[starts[-1] + 1 :] if starts else messages
    answered = {m.tool_call_id for m in turn if isinstance(m, ToolMessage)}
    count = sum(
        int(m.artifact.get("started") or 0)
        for m in turn
        if isinstance(m, ToolMessage) and m.name == DELEGATE and isinstance(m.artifact, dict)
    )
    asking = next((m for m in reversed(turn) if isinstance(m, AIMessage)), None)
    for call in asking.tool_calls if asking is not None else []:
        if call.get("id") == tool_call_id:
            break
        tasks = len((call.get("args") or {}).get("tasks") or [])
        if call.get("name") == DELEGATE and call.get("id") not in answered and tasks <= max_tasks:
            count += tasks
    return count


def delegate_refusal(requested: int, before: int, limits: DelegateLimits) -> str | None:
    """Return the tool error for a call over a bound (None: within them), in the model's terms."""
    if requested > limits.max_tasks:
        return (
            f"Error: delegate takes at most {limits.max_tasks} tasks per call; this call has "
            f"{requested}. Merge parts, send the {limits.max_tasks} that matter most, or "
            "answer some parts yourself with run_sql."
        )
    left = max(limits.max_per_question - before, 0)
    if requested > left:
        return (
            f"Error: one question may hand at most {limits.max_per_question} sub-questions "
            f"to sub-agents; {before} already were, so {left} remain. Answer the other parts "
            "yourself with run_sql."
        )
    return None

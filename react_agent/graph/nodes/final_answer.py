"""The answer's final text: the step limit said plainly, an empty answer filled, notes added."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage

from config import localize
from react_agent.graph.hooks import ANSWER_METADATA, AnswerNote
from react_agent.graph.messages import (
    message_text,
    requests_tools,
    stamped,
    unanswered_tool_results,
)
from react_agent.graph.run_context import run_context
from react_agent.graph.state import AgentState


async def final_answer(state: AgentState, answer_notes: Sequence[AnswerNote]) -> dict[str, Any]:
    """Fix the answer text; when the step limit cut the run short, say so plainly."""
    last = state["messages"][-1]
    if requests_tools(last):
        answer = localize("STEP_LIMIT_ANSWER", run_context().lang)
        closing = [
            *unanswered_tool_results(state["messages"], "Not run: the step limit was reached."),
            AIMessage(answer),
        ]
        closing = [stamped(message) for message in closing]
        return {"messages": closing, "final_answer": answer, "pending_tools": []}
    text = message_text(last)
    # Kept as the model wrote it, so streamed tokens add up to exactly this answer.
    if not text.strip():
        text = localize("EMPTY_ANSWER", run_context().lang)
        # Same id, so it replaces the empty message: the history shows what the client
        # got, and the model is never sent an empty assistant message.
        return {"final_answer": text, "messages": [last.model_copy(update={"content": text})]}
    update: dict[str, Any] = {}
    metadata: dict[str, Any] = {}
    for answer_note in answer_notes:
        line, fields = await answer_note.note(state)
        metadata.update(fields.pop(ANSWER_METADATA, None) or {})
        update.update(fields)
        text = f"{text.rstrip()}\n\n{line}" if line else text
    if text != message_text(last) or metadata:  # same id: the history keeps it as sent
        kept = {**last.response_metadata, **metadata}
        update["messages"] = [last.model_copy(update={"content": text, "response_metadata": kept})]
    return {**update, "final_answer": text}

"""Closing a turn that a crash or disconnect left open, so the next question can run."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import AIMessage, AnyMessage

from config import localize
from react_agent.graph.messages import (
    INTERRUPTED_MARKER,
    requests_tools,
    stamped,
    unanswered_tool_results,
)


def close_unfinished_turn(messages: Sequence[AnyMessage], lang: str | None) -> list[AnyMessage]:
    """Return messages that close a turn a crash or disconnect left open.

    Tool calls without results would make the next model call fail, so each gets an
    error result, and an interrupted question gets an answer saying so.
    """
    if not messages:
        return []
    last = messages[-1]
    if isinstance(last, AIMessage) and not requests_tools(last):
        return []
    closing: list[AnyMessage] = [
        *unanswered_tool_results(messages, "Not run: the question was interrupted.")
    ]
    closing.append(
        AIMessage(
            localize("INTERRUPTED_ANSWER", lang), response_metadata={INTERRUPTED_MARKER: True}
        )
    )
    return [stamped(message) for message in closing]

"""Message utilities shared by the nodes, the runner and the conversation history."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import AIMessage, AnyMessage, ToolMessage

from react_agent.timestamps import now_timestamp

INTERRUPTED_MARKER = "interrupted"
"""Metadata key marking the answer that closes a question a crash or disconnect cut short."""


def stamped(message: AnyMessage) -> AnyMessage:
    """Record when a message was made, in its metadata (models never see it)."""
    message.response_metadata.setdefault("timestamp", now_timestamp())
    return message


def visible_messages(messages: Sequence[AnyMessage], start_id: str | None) -> list[AnyMessage]:
    """Return the messages from `start_id` on (all of them if it is unknown)."""
    for index, message in enumerate(messages):
        if message.id == start_id:
            return list(messages[index:])
    return list(messages)


def requests_tools(message: AnyMessage) -> bool:
    """Whether `message` is the model asking for tools (with parseable arguments or not)."""
    return isinstance(message, AIMessage) and bool(message.tool_calls or message.invalid_tool_calls)


def unanswered_tool_results(messages: Sequence[AnyMessage], reason: str) -> list[ToolMessage]:
    """Return error results for the last model turn's calls that have none yet.

    A model request with a tool call but no result for it is refused by the API, so these
    keep the history valid.
    """
    answered: set[str | None] = set()
    for message in reversed(messages):
        if isinstance(message, ToolMessage):
            answered.add(message.tool_call_id)
            continue
        if not isinstance(message, AIMessage):
            return []
        calls = [*message.tool_calls, *message.invalid_tool_calls]
        return [
            ToolMessage(
                content=reason,
                tool_call_id=call["id"] or "",
                name=call["name"] or "",
                status="error",
            )
            for call in calls
            if call["id"] not in answered
        ]
    return []


def message_text(message: AnyMessage) -> str:
    """Return the text of a message whose content may be a list of parts."""
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(
        part if isinstance(part, str) else str(part.get("text", ""))
        for part in content
        if isinstance(part, str) or part.get("type") == "text"
    )

"""Reading a conversation back from the graph's checkpointer: messages, title and status."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
from langgraph.graph.state import CompiledStateGraph

from react_agent.graph.messages import INTERRUPTED_MARKER, message_text, requests_tools
from react_agent.history.blocks import thread_blocks
from react_agent.timestamps import local_timestamp

TITLE_CHARS = 30
PREVIEW_CHARS = 100


def message_role(message: AnyMessage) -> str:
    """Return a message's role as the replaced service named it: human, ai, tool or system."""
    return message.type


def describe_message(message: AnyMessage, fallback_timestamp: str | None) -> dict[str, Any]:
    """Return a message as the conversation endpoint shows it."""
    item: dict[str, Any] = {
        "message_id": message.id,
        "role": message_role(message),
        "content": message_text(message),
        "timestamp": message.response_metadata.get("timestamp") or fallback_timestamp,
    }
    if isinstance(message, AIMessage) and message.tool_calls:
        item["tool_calls"] = [{"name": c["name"], "args": c["args"]} for c in message.tool_calls]
    if isinstance(message, ToolMessage):
        item["tool_name"] = message.name
        item["status"] = message.status
    if message.response_metadata.get(INTERRUPTED_MARKER):
        item["interrupted"] = True
    return item


def visible_history(messages: list[AnyMessage], include_tools: bool) -> list[dict[str, Any]]:
    """Return the messages of a conversation; tool traffic only when asked for.

    A message without its own timestamp (tool results) takes the one before it.
    """
    items = []
    last_timestamp = None
    for message in messages:
        item = describe_message(message, last_timestamp)
        last_timestamp = item["timestamp"]
        is_tool_traffic = isinstance(message, ToolMessage) or (
            isinstance(message, AIMessage) and message.tool_calls and not item["content"]
        )
        if include_tools or not is_tool_traffic:
            items.append(item)
    return items


def last_turn_interrupted(messages: list[AnyMessage]) -> bool:
    """Whether the newest question was cut short (by a crash, a disconnect or shutdown)."""
    if not messages:
        return False
    last = messages[-1]
    if isinstance(last, AIMessage):
        return requests_tools(last) or bool(last.response_metadata.get(INTERRUPTED_MARKER))
    return True


async def read_conversation(graph: CompiledStateGraph, thread_id: str) -> dict[str, Any] | None:
    """Return a thread's messages and times, or None when it has no checkpoint.

    Args:
        graph: The compiled graph whose checkpointer holds the conversations.
        thread_id: The conversation's thread.

    """
    snapshot = await graph.aget_state({"configurable": {"thread_id": thread_id}})
    messages: list[AnyMessage] = snapshot.values.get("messages", []) if snapshot.values else []
    if not messages:
        return None
    questions = [m for m in messages if isinstance(m, HumanMessage)]
    first_question = message_text(questions[0]) if questions else ""
    answers = [m for m in messages if isinstance(m, AIMessage) and message_text(m)]
    return {
        "messages": messages,
        "title": snapshot.values.get("custom_title") or _shorten(first_question, TITLE_CHARS),
        "last_message": _shorten(
            message_text(answers[-1] if answers else messages[-1]), PREVIEW_CHARS
        ),
        "message_count": len(messages),
        "created_at": messages[0].response_metadata.get("timestamp"),
        "updated_at": local_timestamp(snapshot.created_at),
        "next_nodes": list(snapshot.next),
        "interrupted": last_turn_interrupted(messages),
        "interrupts": list(snapshot.interrupts),
        "stored_blocks": snapshot.values.get("history_blocks", []),
    }


def conversation_blocks(conversation: dict[str, Any]) -> list[dict[str, Any]]:
    """Return a conversation's turn blocks, oldest first (read_conversation gives it).

    A thread older than blocks shows blocks built from its messages; they are stored on
    its next question.
    """
    return thread_blocks(conversation["messages"], conversation["stored_blocks"], None)


def _shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"

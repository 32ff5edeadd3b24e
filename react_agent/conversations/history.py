"""Reading conversations back from the checkpointer: lists, messages and run status."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from react_agent.graph.nodes import INTERRUPTED_MARKER, message_text, requests_tools
from react_agent.runs.runner import AgentRunner
from react_agent.timestamps import local_timestamp

TITLE_CHARS = 30
PREVIEW_CHARS = 100

_LIST_THREADS_SQL = (
    "SELECT thread_id FROM checkpoints WHERE thread_id >= {p} AND thread_id < {p} "
    "AND checkpoint_ns = '' GROUP BY thread_id ORDER BY MAX(checkpoint_id) DESC LIMIT {p}"
)


async def list_thread_ids(checkpointer: BaseCheckpointSaver, user_id: str, limit: int) -> list[str]:
    """Return the ids of a user's threads, most recently updated first.

    Thread ids are `user_id:…`, so a key range finds them without scanning other users;
    checkpoint ids grow with time, so the largest one per thread orders by last update.
    """
    low, high = f"{user_id}:", f"{user_id};"  # ';' is the character after ':'
    if isinstance(checkpointer, AsyncSqliteSaver):
        async with checkpointer.conn.execute(
            _LIST_THREADS_SQL.format(p="?"), (low, high, limit)
        ) as cursor:
            return [row[0] for row in await cursor.fetchall()]
    if isinstance(checkpointer, InMemorySaver):
        latest = {
            thread_id: max(namespaces.get("", {}) or [""])
            for thread_id, namespaces in checkpointer.storage.items()
            if low <= thread_id < high
        }
        return sorted(latest, key=latest.__getitem__, reverse=True)[:limit]
    from react_agent.conversations.postgres_checkpointer import list_postgres_thread_ids

    return await list_postgres_thread_ids(
        checkpointer, _LIST_THREADS_SQL.format(p="%s"), (low, high, limit)
    )


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


async def read_conversation(runner: AgentRunner, thread_id: str) -> dict[str, Any] | None:
    """Return a thread's messages and times, or None when it has no checkpoint."""
    snapshot = await runner.graph.aget_state(runner.config_for(thread_id))
    messages: list[AnyMessage] = snapshot.values.get("messages", []) if snapshot.values else []
    if not messages:
        return None
    questions = [m for m in messages if isinstance(m, HumanMessage)]
    first_question = message_text(questions[0]) if questions else ""
    answers = [m for m in messages if isinstance(m, AIMessage) and message_text(m)]
    return {
        "messages": messages,
        "title": _shorten(first_question, TITLE_CHARS),
        "last_message": _shorten(
            message_text(answers[-1] if answers else messages[-1]), PREVIEW_CHARS
        ),
        "message_count": len(messages),
        "created_at": messages[0].response_metadata.get("timestamp"),
        "updated_at": local_timestamp(snapshot.created_at),
        "next_nodes": list(snapshot.next),
        "interrupted": last_turn_interrupted(messages),
    }


def _shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"

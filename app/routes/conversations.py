"""Conversation endpoints: a user's conversations, one conversation, a thread's status."""

from __future__ import annotations

from pydantic import BaseModel, Field
from quart import Blueprint, g
from quart_schema import document_response, validate_querystring

from app.app_state import agent_service
from app.envelope import success_envelope
from app.errors import request_lang
from app.openapi import document_errors
from app.schemas import ConversationEnvelope, ConversationListEnvelope, ThreadStatusEnvelope
from app.validation import (
    MAX_USER_ID_CHARS,
    check_thread_id_format,
    check_thread_owner,
    check_user_id,
)
from config import node_display
from react_agent.conversations.history import list_thread_ids, read_conversation, visible_history
from react_agent.errors import ServiceError
from react_agent.runs.runner import AgentRunner

blueprint = Blueprint("conversations", __name__)


class ConversationListQuery(BaseModel):
    """Query of the conversation list."""

    limit: int = Field(default=10, ge=1, le=50, description="How many, newest first (1–50).")
    lang: str | None = Field(default=None, description="zh-CN (default) or en-US.")


class ThreadQuery(BaseModel):
    """Query of the endpoints that name a thread: whose it is."""

    user_id: str = Field(
        min_length=1, max_length=MAX_USER_ID_CHARS, description="The thread's owner."
    )
    lang: str | None = Field(default=None, description="zh-CN (default) or en-US.")


class ConversationQuery(ThreadQuery):
    """Query of one conversation."""

    include_tools: bool = Field(default=False, description="Also list tool calls and results.")


def owned_thread(thread_id: str, user_id: str) -> str:
    """Check a thread id names a thread of `user_id` (as the ask endpoints do)."""
    g.conversation_id = thread_id
    check_thread_id_format(thread_id)
    check_thread_owner(thread_id, user_id)
    return thread_id


def conversation_runner() -> AgentRunner:
    """Return the runner, whose graph and checkpointer hold the conversations."""
    return agent_service().require_runner()


@blueprint.get("/api/v0/react/users/<user_id>/conversations")
@validate_querystring(ConversationListQuery)
@document_response(ConversationListEnvelope, 200)
@document_errors(400, 503)
async def list_conversations(user_id: str, query_args: ConversationListQuery) -> dict:
    """List a user's conversations, most recently updated first."""
    g.lang = request_lang()
    runner = conversation_runner()
    thread_ids = await list_thread_ids(
        runner.graph.checkpointer, check_user_id(user_id), query_args.limit
    )
    conversations = []
    for thread_id in thread_ids:
        conversation = await read_conversation(runner, thread_id)
        if conversation is None:
            continue
        conversations.append(
            {
                "conversation_id": thread_id,
                "thread_id": thread_id,
                "title": conversation["title"],
                "last_message": conversation["last_message"],
                "message_count": conversation["message_count"],
                "created_at": conversation["created_at"],
                "updated_at": conversation["updated_at"],
            }
        )
    data = {"user_id": user_id, "conversations": conversations, "count": len(conversations)}
    return success_envelope(data, g.lang)


@blueprint.get("/api/v0/react/conversations/<thread_id>")
@validate_querystring(ConversationQuery)
@document_response(ConversationEnvelope, 200)
@document_errors(400, 404, 503)
async def get_conversation(thread_id: str, query_args: ConversationQuery) -> dict:
    """Return one conversation's messages; tool traffic only with include_tools."""
    g.lang = request_lang()
    owned_thread(thread_id, query_args.user_id)
    conversation = await read_conversation(conversation_runner(), thread_id)
    if conversation is None:
        raise ServiceError(404, "THREAD_NOT_FOUND", f"no conversation {thread_id}")
    data = {
        "conversation_id": thread_id,
        "thread_id": thread_id,
        "user_id": query_args.user_id,
        "title": conversation["title"],
        "message_count": conversation["message_count"],
        "created_at": conversation["created_at"],
        "updated_at": conversation["updated_at"],
        "messages": visible_history(conversation["messages"], query_args.include_tools),
    }
    return success_envelope(data, g.lang)


@blueprint.get("/api/v0/react/status/<thread_id>")
@validate_querystring(ThreadQuery)
@document_response(ThreadStatusEnvelope, 200)
@document_errors(400, 503)
async def thread_status(thread_id: str, query_args: ThreadQuery) -> dict:
    """Say whether a thread is running (and in which node), completed, interrupted or unknown."""
    g.lang = request_lang()
    owned_thread(thread_id, query_args.user_id)
    runner = conversation_runner()
    running = await runner.locks.is_running(thread_id)
    conversation = await read_conversation(runner, thread_id)
    data: dict = {
        "thread_id": thread_id,
        "conversation_id": thread_id,
        "user_id": query_args.user_id,
    }
    if running:
        next_nodes = conversation["next_nodes"] if conversation else []
        node = next_nodes[0] if next_nodes else "__start__"
        data.update({"status": "running", "node": node, **node_display(node, g.lang)})
    elif conversation is None:
        data["status"] = "not_found"
    else:
        data["status"] = "interrupted" if conversation["interrupted"] else "completed"
    if conversation is not None:
        data["message_count"] = conversation["message_count"]
        data["updated_at"] = conversation["updated_at"]
    return success_envelope(data, g.lang)

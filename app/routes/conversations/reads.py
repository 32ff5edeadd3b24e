"""Conversation endpoints: a user's conversations, one conversation, a thread's status."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field
from quart import Blueprint, current_app, g
from quart_schema import document_response, validate_querystring

from app.asking.access import request_actor, without_sql
from app.asking.replies.approval_data import approval_fields, pause_status
from app.asking.replies.subagent_status import running_subagents
from app.asking.thread_access import ThreadQuery, owned_thread
from app.http.app_state import agent_service, agent_service_of
from app.http.envelope import success_envelope
from app.http.errors import request_lang
from app.http.ids import check_user_id
from app.openapi import document_errors
from app.schemas.conversations import (
    ConversationEnvelope,
    ConversationListEnvelope,
    ThreadStatusEnvelope,
)
from config import node_display
from react_agent.approval.pending import describe_interrupt
from react_agent.conversations.history import conversation_blocks, visible_history
from react_agent.conversations.questions import conversation_title, last_question
from react_agent.errors import ServiceError
from react_agent.results.turn_results import conversation_turns
from react_agent.service.conversations import SEARCH_SCAN_LIMIT
from react_agent.timestamps import now_timestamp

blueprint = Blueprint("conversations", __name__)

DEFAULT_LIST_LIMIT = 10
MAX_LIST_LIMIT = 50


class ConversationListQuery(BaseModel):
    """Query of the conversation list."""

    limit: int = Field(
        default=DEFAULT_LIST_LIMIT,
        description=f"How many, newest first; clamped to 1–{MAX_LIST_LIMIT}.",
    )
    lang: str | None = Field(default=None, description="zh-CN (default) or en-US.")
    q: str | None = Field(
        default=None,
        description="Only conversations whose title or questions contain this text "
        f"(case-insensitive; among the newest {SEARCH_SCAN_LIMIT}).",
    )


class ConversationQuery(ThreadQuery):
    """Query of one conversation."""

    include_tools: bool = Field(default=False, description="Also list tool calls and results.")


class UserConversationQuery(BaseModel):
    """Query of one conversation named under its user."""

    include_tools: bool = Field(default=False, description="Also list tool calls and results.")
    lang: str | None = Field(default=None, description="zh-CN (default) or en-US.")


def clamp_list_limit(limit: int) -> int:
    """Return `limit` moved into 1–50, as the replaced service did instead of refusing it."""
    return max(1, min(MAX_LIST_LIMIT, limit))


@blueprint.get("/api/v0/react/users/<user_id>/conversations")
@validate_querystring(ConversationListQuery)
@document_response(ConversationListEnvelope, 200)
@document_errors(400, 503)
async def list_conversations(user_id: str, query_args: ConversationListQuery) -> dict:
    """List a user's conversations, most recently updated first."""
    g.lang = request_lang()
    limit = clamp_list_limit(query_args.limit)
    page = (
        await agent_service()
        .conversations()
        .page(check_user_id(user_id), limit, query_args.q or "")
    )
    conversations = [
        conversation_summary(user_id, thread_id, conversation)
        for thread_id, conversation in page.conversations
    ]
    data = {
        "user_id": user_id,
        "conversations": conversations,
        "count": len(conversations),
        "total_count": page.total_count,
        "limit": limit,
    }
    return success_envelope(data, g.lang)


def conversation_summary(user_id: str, thread_id: str, conversation: dict) -> dict[str, Any]:
    """Return one item of the conversation list."""
    messages = conversation["messages"]
    return {
        "conversation_id": thread_id,
        "thread_id": thread_id,
        "user_id": user_id,
        "title": conversation["title"],
        "conversation_title": conversation_title(messages),
        "last_message": last_question(messages),
        "last_answer": conversation["last_message"],
        "message_count": conversation["message_count"],
        "created_at": conversation["created_at"],
        "updated_at": conversation["updated_at"],
    }


@blueprint.get("/api/v0/react/conversations/<thread_id>")
@validate_querystring(ConversationQuery)
@document_response(ConversationEnvelope, 200)
@document_errors(400, 404, 503)
async def get_conversation(thread_id: str, query_args: ConversationQuery) -> dict:
    """Return one conversation's messages; tool traffic only with include_tools."""
    g.lang = request_lang()
    user_id = owned_thread(thread_id, query_args.user_id)
    data = await conversation_detail(thread_id, user_id, query_args.include_tools)
    return success_envelope(data, g.lang)


@blueprint.get("/api/v0/react/users/<user_id>/conversations/<thread_id>")
@validate_querystring(UserConversationQuery)
@document_response(ConversationEnvelope, 200)
@document_errors(400, 404, 503)
async def get_user_conversation(
    user_id: str, thread_id: str, query_args: UserConversationQuery
) -> dict:
    """Return one conversation of a user (as the conversation endpoint; 400 if not theirs)."""
    g.lang = request_lang()
    owned_thread(thread_id, user_id)
    data = await conversation_detail(thread_id, user_id, query_args.include_tools)
    return success_envelope(data, g.lang)


async def conversation_detail(thread_id: str, user_id: str, include_tools: bool) -> dict:
    """Return the data of one conversation, or raise 404 when the thread has none."""
    runner = agent_service().require_runner()
    conversations = agent_service().conversations()
    conversation = await conversations.read(thread_id)
    if conversation is None:
        raise ServiceError(404, "THREAD_NOT_FOUND", f"no conversation {thread_id}")
    data = {
        "conversation_id": thread_id,
        "thread_id": thread_id,
        "user_id": user_id,
        "title": conversation["title"],
        "conversation_title": conversation_title(conversation["messages"]),
        "message_count": conversation["message_count"],
        "total_checkpoints": await conversations.count_checkpoints(thread_id),
        "created_at": conversation["created_at"],
        "updated_at": conversation["updated_at"],
        "messages": visible_history(conversation["messages"], include_tools),
        "blocks": conversation_blocks(conversation),
        # Per question: answer, SQL, records, chart and answer check, so a page restores
        # every turn as it showed it live.
        "turns": conversation_turns(conversation["messages"], runner.check_answer),
    }
    _, scope = request_actor(agent_service_of(current_app), user_id)
    if scope is not None and not scope.show_sql:
        # The role's answers carry no SQL; neither does reading the conversation back
        # (its messages, blocks and turns).
        return without_sql(data)
    return data


@blueprint.get("/api/v0/react/status/<thread_id>")
@validate_querystring(ThreadQuery)
@document_response(ThreadStatusEnvelope, 200)
@document_errors(400, 404, 503)
async def thread_status(thread_id: str, query_args: ThreadQuery) -> dict:
    """Say whether a thread is running (and in which step), completed or interrupted.

    `name` and `icon` are the stream's display of the step: the node about to run while
    running, the node the run stopped before when interrupted there, else `__end__`.
    While a delegate call runs, `subagents` says where each of its sub-agents is.
    """
    g.lang = request_lang()
    user_id = owned_thread(thread_id, query_args.user_id)
    conversations = agent_service().conversations()
    running = await conversations.is_running(thread_id)
    conversation = await conversations.read(thread_id)
    if conversation is None and not running:
        raise ServiceError(404, "THREAD_NOT_FOUND", f"no conversation {thread_id}")
    next_nodes = conversation["next_nodes"] if conversation else []
    approval = describe_interrupt(conversation["interrupts"]) if conversation else None
    if running:
        status, node = "running", next_nodes[0] if next_nodes else "__start__"
    elif approval is not None:
        status, node = pause_status(approval), next_nodes[0] if next_nodes else "__end__"
    else:
        status = "interrupted" if conversation["interrupted"] else "completed"
        node = next_nodes[0] if next_nodes else "__end__"
    display = node_display(node, g.lang)
    data: dict = {
        "thread_id": thread_id,
        "conversation_id": thread_id,
        "user_id": user_id,
        "status": status,
        "node": node,
        "name": display["display_name"],
        **display,
        "timestamp": now_timestamp(),
    }
    if conversation is not None:
        data["message_count"] = conversation["message_count"]
        data["updated_at"] = conversation["updated_at"]
    if approval is not None and not running:
        # What the thread waits for (SQL, or a question) and what a resume must name.
        data["approval"] = approval_fields(approval, thread_id, g.lang)
    if running and conversation is not None:
        messages = conversation["messages"]
        subagents = await running_subagents(conversations, thread_id, messages, g.lang)
        if subagents:
            data["subagents"] = subagents
    return success_envelope(data, g.lang)

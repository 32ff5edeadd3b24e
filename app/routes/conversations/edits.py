"""Changing a conversation: rename it (PATCH) or delete it (DELETE), for its owner only."""

from __future__ import annotations

from quart import Blueprint, g, request
from quart_schema import document_response, validate_querystring

from app.asking.thread_access import ThreadQuery, owned_thread
from app.http.app_state import agent_service
from app.http.bodies import read_json_object
from app.http.envelope import success_envelope
from app.http.errors import request_lang
from app.openapi import document_errors
from app.schemas.page import EditedConversationEnvelope
from react_agent.errors import ServiceError

blueprint = Blueprint("conversation_edits", __name__)

MAX_TITLE_CHARS = 100


async def idle_conversation(thread_id: str) -> dict:
    """Return the conversation, or raise 404 when it has none, 409 while a question runs."""
    conversations = agent_service().conversations()
    if await conversations.is_running(thread_id):
        raise ServiceError(409, "THREAD_BUSY", f"conversation {thread_id} is answering")
    conversation = await conversations.read(thread_id)
    if conversation is None:
        raise ServiceError(404, "THREAD_NOT_FOUND", f"no conversation {thread_id}")
    return conversation


@blueprint.patch("/api/v0/react/conversations/<thread_id>")
@validate_querystring(ThreadQuery)
@document_response(EditedConversationEnvelope, 200)
@document_errors(400, 404, 409, 503)
async def rename_conversation(thread_id: str, query_args: ThreadQuery) -> dict:
    """Give a conversation a title of its own (`{"title": "..."}`; empty: its first question)."""
    g.lang = request_lang()
    body = await read_json_object(request)
    user_id = owned_thread(thread_id, query_args.user_id or body.get("user_id"))
    title = body.get("title")
    if not isinstance(title, str) or len(title.strip()) > MAX_TITLE_CHARS:
        raise ServiceError(400, "INVALID_TITLE", f"title must be text of 0–{MAX_TITLE_CHARS} chars")
    conversation = await idle_conversation(thread_id)
    if conversation["next_nodes"]:
        # A paused run (approval) resumes from its checkpoint; a new one would move it.
        raise ServiceError(409, "THREAD_BUSY", f"conversation {thread_id} waits for a decision")
    title = " ".join(title.split()) or None
    renamed = await agent_service().conversations().rename(thread_id, title)
    data = {"thread_id": thread_id, "conversation_id": thread_id, "user_id": user_id}
    data["title"] = (renamed or conversation)["title"]
    return success_envelope(data, g.lang)


@blueprint.delete("/api/v0/react/conversations/<thread_id>")
@validate_querystring(ThreadQuery)
@document_response(EditedConversationEnvelope, 200)
@document_errors(400, 404, 409, 503)
async def delete_conversation(thread_id: str, query_args: ThreadQuery) -> dict:
    """Delete a conversation and every checkpoint of it (its sub-agents' too)."""
    g.lang = request_lang()
    user_id = owned_thread(thread_id, query_args.user_id)
    await idle_conversation(thread_id)
    await agent_service().conversations().delete(thread_id)
    data = {"thread_id": thread_id, "conversation_id": thread_id, "user_id": user_id}
    return success_envelope({**data, "deleted": True}, g.lang)

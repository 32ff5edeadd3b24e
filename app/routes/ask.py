"""The legacy synchronous ask endpoint."""

from __future__ import annotations

from dataclasses import replace

from quart import Blueprint, current_app, g, request
from quart_schema import document_request, document_response

from app.envelope import success_envelope
from app.final_data import build_final_data
from app.openapi import document_errors
from app.schemas import AskEnvelope
from app.thread_ids import unique_new_thread_id
from app.validation import AskBody, AskRequest, read_json_object, validate_ask_request
from config import resolve_lang

blueprint = Blueprint("ask", __name__)


def accept(payload: dict) -> AskRequest:
    """Validate an ask payload and remember its language and thread for error envelopes."""
    accept_language = request.headers.get("Accept-Language")
    requested_lang = payload.get("lang")
    # Known before validation, so even a rejected request is answered in its language.
    g.lang = resolve_lang(
        requested_lang if isinstance(requested_lang, str) else None, accept_language
    )
    ask = validate_ask_request(
        payload, current_app.extensions["thread_id_clock"], accept_language=accept_language
    )
    g.lang = ask.lang
    if not ask.is_new_thread:
        # A new id is only real once its run starts; errors before that must not name it.
        g.conversation_id = ask.thread_id
    return ask


async def accept_unique(payload: dict) -> AskRequest:
    """Like `accept`, and a new thread id is made unique across processes and hosts."""
    ask = accept(payload)
    if ask.is_new_thread:
        thread_id = await unique_new_thread_id(
            current_app.extensions["thread_id_clock"],
            current_app.extensions["stream_runs"].store,
            ask.user_id,
            ask.thread_id,
        )
        ask = replace(ask, thread_id=thread_id)
    return ask


@blueprint.post("/api/v0/ask_react_agent")
@document_request(AskBody)
@document_response(AskEnvelope, 200)
@document_errors(400, 409, 413, 500, 503, 504)
async def ask_react_agent() -> dict:
    """Answer a question and return the final data in the envelope (legacy sync API)."""
    g.legacy_envelope = True
    ask = await accept_unique(await read_json_object(request))
    runner = current_app.extensions["agent"].require_runner()
    run = await runner.start(ask.question, ask.thread_id, lang=ask.lang, on_busy=ask.on_busy)
    g.conversation_id = ask.thread_id  # the thread exists from here on
    result = await run.result()
    return success_envelope(build_final_data(result, ask.user_id), ask.lang)

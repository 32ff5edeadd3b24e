"""The legacy synchronous ask endpoint."""

from __future__ import annotations

from quart import Blueprint, current_app, g, request

from app.envelope import success_envelope
from app.final_data import build_final_data
from app.validation import AskRequest, read_json_object, validate_ask_request
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
    g.conversation_id = ask.thread_id
    return ask


@blueprint.post("/api/v0/ask_react_agent")
async def ask_react_agent() -> dict:
    """Answer a question and return the final data in the envelope (legacy sync API)."""
    g.legacy_envelope = True
    ask = accept(await read_json_object(request))
    runner = current_app.extensions["agent"].require_runner()
    result = await runner.ask(ask.question, ask.thread_id, lang=ask.lang)
    return success_envelope(build_final_data(result, ask.user_id), ask.lang)

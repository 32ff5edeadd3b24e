"""The legacy synchronous ask endpoint, and its deprecated former path /api/chat."""

from __future__ import annotations

from quart import Blueprint, g, request
from quart_schema import deprecate, document_request, document_response

from app.asking.accept import ask_response_headers
from app.asking.accept_route import accept_request
from app.asking.replies.approval_data import build_awaiting_approval_data
from app.asking.replies.final_data import build_final_data
from app.asking.start import start_run
from app.asking.validation import AskBody
from app.http.app_state import agent_service
from app.http.bodies import read_json_object
from app.http.envelope import success_envelope
from app.openapi import document_errors
from app.schemas.ask import AskEnvelope

blueprint = Blueprint("ask", __name__)


@blueprint.post("/api/v0/ask_react_agent")
@document_request(AskBody)
@document_response(AskEnvelope, 200)
@document_errors(400, 404, 409, 413, 500, 503, 504)
async def ask_react_agent() -> tuple[dict, int, dict[str, str]]:
    """Answer a question and return the final data in the envelope (legacy sync API)."""
    return await answer_question()


@blueprint.post("/api/chat")
@deprecate
@document_request(AskBody)
@document_response(AskEnvelope, 200)
@document_errors(400, 404, 409, 413, 500, 503, 504)
async def chat() -> tuple[dict, int, dict[str, str]]:
    """Answer a question at the replaced service's path (deprecated alias of the sync ask)."""
    return await answer_question()


async def answer_question() -> tuple[dict, int, dict[str, str]]:
    """Run the request's question to its end; return the envelope, 200 and the headers."""
    g.legacy_envelope = True
    ask = await accept_request(await read_json_object(request))
    runner = agent_service().require_runner()
    run = await start_run(runner, ask)
    g.conversation_id = ask.thread_id  # the thread exists from here on
    result = await run.result()
    if result.approval is not None:
        data = build_awaiting_approval_data(result, ask.user_id, ask.lang)
        return success_envelope(data, ask.lang), 200, ask_response_headers(ask)
    final = build_final_data(
        result, ask.user_id, conversation_id_ignored=ask.conversation_id_ignored
    )
    return success_envelope(final, ask.lang), 200, ask_response_headers(ask)

"""The replaced service's `ask_react_agent_stream_sync`: an alias of the GET stream."""

from __future__ import annotations

from quart import Blueprint, Response, request
from quart_schema import (
    deprecate,
    document_headers,
    document_querystring,
    document_response,
)

from app.routes.ask_stream import stream_question
from app.schemas import NoContent, StreamEvent, StreamHeaders
from app.validation import AskBody, query_args_payload

blueprint = Blueprint("legacy_stream", __name__)

STREAM_SYNC_PATH = "/api/v0/ask_react_agent_stream_sync"


@blueprint.get(STREAM_SYNC_PATH)
@deprecate
@document_querystring(AskBody)
@document_headers(StreamHeaders)
@document_response(StreamEvent, 200)
@document_response(NoContent, 204)
async def ask_react_agent_stream_sync() -> Response:
    """Answer as `GET /api/v0/ask_react_agent_stream` does (deprecated alias, same run)."""
    return await stream_question(read_query_payload)


async def read_query_payload() -> dict:
    """Return the ask payload of this request's query parameters."""
    return query_args_payload(request.args, request.query_string)

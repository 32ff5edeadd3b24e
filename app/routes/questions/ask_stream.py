"""The streaming twin of the ask endpoint: the same run, as Server-Sent Events or NDJSON."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

from quart import Blueprint, Response, g, request
from quart_schema import (
    deprecate,
    document_headers,
    document_querystring,
    document_request,
    document_response,
)

from app.asking.accept import ask_response_headers
from app.asking.accept_route import accept_request
from app.asking.start import start_run
from app.asking.validation import AskBody
from app.http.app_state import agent_service, app_settings, stream_runs
from app.http.auth import owns, request_values, users_named
from app.http.bodies import query_args_payload, read_json_object
from app.http.errors import request_lang
from app.schemas.stream import NoContent, StreamEvent, StreamHeaders
from app.streaming.events import StreamContext
from app.streaming.follow import batches_to_resume, error_stream, follow_in_trace, follow_run
from app.streaming.formats import StreamFormat, choose_stream_format
from app.streaming.ids import parse_event_id
from react_agent.errors import ServiceError
from react_agent.runs.events.event_log import Batch
from react_agent.runs.store.events import Payload, RunRecord

blueprint = Blueprint("ask_stream", __name__)

STREAM_PATH = "/api/v0/ask_react_agent_stream"
STREAM_SYNC_PATH = "/api/v0/ask_react_agent_stream_sync"
"""The replaced service's name for the GET stream: a deprecated alias, same run and events."""


@blueprint.post(STREAM_PATH)
@document_request(AskBody)
@document_headers(StreamHeaders)
@document_response(StreamEvent, 200)
@document_response(NoContent, 204)
async def ask_react_agent_stream() -> Response:
    """Answer a question as a stream of Server-Sent Events (JSON body), or NDJSON.

    `Accept: application/x-ndjson` or `?format=ndjson` sends the same envelopes as one JSON
    object per line (with the event id as `id`) and `{"type":"ping"}` lines as keep-alives.
    Errors before the run starts are sent as an `error` event then `end`, with HTTP 200, so
    a page can show them. A reconnect with `Last-Event-ID` resumes the run it names, or gets
    204 when that run has nothing more to send; it never asks the question again.
    """
    return await stream_question(lambda: read_json_object(request))


@blueprint.get(STREAM_PATH)
@document_querystring(AskBody)
@document_headers(StreamHeaders)
@document_response(StreamEvent, 200)
@document_response(NoContent, 204)
async def ask_react_agent_stream_get() -> Response:
    """Answer a question as a stream of Server-Sent Events or NDJSON (query parameters)."""
    return await stream_question(_query_payload)


@blueprint.get(STREAM_SYNC_PATH)
@deprecate
@document_querystring(AskBody)
@document_headers(StreamHeaders)
@document_response(StreamEvent, 200)
@document_response(NoContent, 204)
async def ask_react_agent_stream_sync() -> Response:
    """Answer as `GET /api/v0/ask_react_agent_stream` does (the replaced service's name)."""
    return await stream_question(_query_payload)


async def _query_payload() -> dict:
    return query_args_payload(request.args, request.query_string)


async def stream_question(read_payload: Callable[[], Awaitable[dict]]) -> Response:
    """Start (or resume) a run and return its event stream in the format the client asked for."""
    wire = choose_stream_format(request.headers.get("Accept"), request.args.get("format"))
    last_event_id = request.headers.get("Last-Event-ID")
    if last_event_id:
        return await resume_stream(last_event_id, wire)
    runs = stream_runs()
    try:
        ask = await accept_request(await read_payload())
        runner = agent_service().require_runner()
        ctx = StreamContext(
            ask.thread_id,
            ask.user_id,
            ask.lang,
            # Tool events carry SQL and arguments: not for a role without show_sql.
            stream_tools=ask.stream_tools and (ask.scope is None or ask.scope.show_sql),
            conversation_id_ignored=ask.conversation_id_ignored,
        )
        run = await start_run(runner, ask, stream_tokens=ask.stream_tokens)
    except ServiceError as error:
        ctx = StreamContext(getattr(g, "conversation_id", None) or "", "", request_lang())
        response = stream_response(error_stream(error, ctx, wire), wire)
        if "retry_after" in error.params:  # 503 QUEUE_FULL: as on the sync endpoint
            response.headers["Retry-After"] = str(error.params["retry_after"])
        return response
    try:
        await runs.publish(run, ctx)
    except BaseException:
        run.cancel()
        raise
    frames = _follow(run.run_id, 0, wire)
    return stream_response(frames, wire, ask_response_headers(ask))


async def resume_stream(last_event_id: str, wire: StreamFormat) -> Response:
    """Send what a reconnecting client missed (from any worker), or 204 when nothing is left.

    Only the run's user replays it: the key must act for them, and a user the request
    names (user_id, thread_id) must be them; another user's run is as an unknown one (204).
    """
    run_id, after = parse_event_id(last_event_id)
    runs = stream_runs()
    named = users_named(await request_values(request))

    def may_read(record: RunRecord) -> bool:
        return owns(record.user_id) and all(owns(record.user_id, user) for user in named)

    heartbeat = app_settings().stream_heartbeat
    resumed = await batches_to_resume(runs, run_id, after, heartbeat, may_read)
    if resumed is None:
        response = Response("", status=204)
        del response.headers["Content-Type"]  # 204 has no body, so no type either
        return response
    record, batches = resumed
    frames = _follow(run_id, after, wire, batches)
    # With traces on, the stream's span links to the trace of the run (on whichever worker).
    traced = getattr(g, "trace_span", None) is not None
    return stream_response(follow_in_trace(frames, record, runs.store.owner, traced=traced), wire)


def stream_response(
    frames: AsyncIterator[bytes], wire: StreamFormat, headers: dict[str, str] | None = None
) -> Response:
    """Wrap frames in a streaming response with the format's headers (and `headers`)."""
    response = Response(frames, status=200, headers={**wire.headers, **(headers or {})})
    # Quart's 60 s RESPONSE_TIMEOUT would otherwise cut long streams without a word.
    response.timeout = None
    return response


def _follow(
    run_id: str,
    after: int,
    wire: StreamFormat,
    batches: AsyncIterator[Batch[Payload]] | None = None,
) -> AsyncIterator[bytes]:
    settings = app_settings()
    return follow_run(
        stream_runs(),
        run_id,
        after=after,
        wire=wire,
        heartbeat=settings.stream_heartbeat,
        retry_ms=settings.stream_retry_ms,
        batches=batches,
    )

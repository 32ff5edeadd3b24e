"""The streaming twin of the ask endpoint: the same run, as Server-Sent Events."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from quart import Blueprint, Response, current_app, g, request
from quart_schema import document_headers, document_querystring, document_request, document_response

from app.errors import request_lang
from app.routes.ask import accept_unique
from app.schemas import NoContent, StreamEvent, StreamHeaders
from app.sse import SSE_HEADERS, encode_sse_comment, encode_sse_event
from app.stream_events import StreamContext, end_envelope, error_event_envelope
from app.stream_runs import StreamRuns
from app.validation import AskBody, query_args_payload, read_json_object
from react_agent.errors import ServiceError
from react_agent.runs.event_store import RUNNING

blueprint = Blueprint("ask_stream", __name__)

STREAM_PATH = "/api/v0/ask_react_agent_stream"


@blueprint.post(STREAM_PATH)
@document_request(AskBody)
@document_headers(StreamHeaders)
@document_response(StreamEvent, 200)
@document_response(NoContent, 204)
async def ask_react_agent_stream() -> Response:
    """Answer a question as a stream of Server-Sent Events (JSON body).

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
    """Answer a question as a stream of Server-Sent Events (query parameters, for EventSource)."""
    return await stream_question(_query_payload)


async def _query_payload() -> dict:
    return query_args_payload(request.args, request.query_string)


async def stream_question(read_payload: Callable[[], Awaitable[dict]]) -> Response:
    """Start (or resume) a run and return its event stream."""
    last_event_id = request.headers.get("Last-Event-ID")
    if last_event_id:
        return await resume_stream(last_event_id)
    runs: StreamRuns = current_app.extensions["stream_runs"]
    try:
        ask = await accept_unique(await read_payload())
        runner = current_app.extensions["agent"].require_runner()
        ctx = StreamContext(ask.thread_id, ask.user_id, ask.lang)
        run = await runner.start(
            ask.question,
            ask.thread_id,
            lang=ask.lang,
            stream_tokens=ask.stream_tokens,
            on_busy=ask.on_busy,
        )
    except ServiceError as error:
        ctx = StreamContext(getattr(g, "conversation_id", None) or "", "", request_lang())
        response = sse_response(error_stream(error, ctx))
        if "retry_after" in error.params:  # 503 QUEUE_FULL: as on the sync endpoint
            response.headers["Retry-After"] = str(error.params["retry_after"])
        return response
    try:
        await runs.publish(run, ctx)
    except BaseException:
        run.cancel()
        raise
    return sse_response(follow_run(run.run_id, after=0))


async def resume_stream(last_event_id: str) -> Response:
    """Send what a reconnecting client missed (from any worker), or 204 when nothing is left."""
    run_id, _, seq = last_event_id.partition(":")
    runs: StreamRuns = current_app.extensions["stream_runs"]
    after = int(seq) if seq.isdigit() else 0
    first = await _first_event(runs, run_id, after)
    if first is None:
        response = Response("", status=204)
        del response.headers["Content-Type"]  # 204 has no body, so no type either
        return response
    return sse_response(follow_run(run_id, after=after, first=first))


async def _first_event(runs: StreamRuns, run_id: str, after: int) -> AsyncIterator | None:
    """Return the run's events after `after`, or None if the run has nothing more to send."""
    record = await runs.store.record(run_id) if run_id else None
    if record is None:
        return None
    settings = current_app.extensions["settings"]
    events = runs.follow(run_id, after, settings.stream_heartbeat)
    if record.status == RUNNING:
        return events
    try:
        # The run has ended, so this answers at once: its next event, or none (204).
        first = await anext(events)
    except StopAsyncIteration:
        return None
    return _prepend(first, events)


async def _prepend(first: tuple[int, Any], rest: AsyncIterator) -> AsyncIterator:
    try:
        yield first
        async for item in rest:
            yield item
    finally:
        await rest.aclose()  # type: ignore[attr-defined]


def sse_response(frames: AsyncIterator[bytes]) -> Response:
    """Wrap frames in a streaming response with the SSE headers and no response timeout."""
    response = Response(frames, status=200, headers=SSE_HEADERS)
    # Quart's 60 s RESPONSE_TIMEOUT would otherwise cut long streams without a word.
    response.timeout = None
    return response


def follow_run(
    run_id: str, *, after: int, first: AsyncIterator | None = None
) -> AsyncIterator[bytes]:
    """Return the run's events as SSE frames from sequence `after` on, with heartbeats."""
    settings = current_app.extensions["settings"]
    runs: StreamRuns = current_app.extensions["stream_runs"]
    events = first or runs.follow(run_id, after, settings.stream_heartbeat)
    return _frames(run_id, events, settings.stream_retry_ms)


async def _frames(run_id: str, events: AsyncIterator, retry_ms: int) -> AsyncIterator[bytes]:
    # Runs outside the request context, so everything it needs is passed in.
    async for seq, envelope in events:
        if envelope is None:
            yield encode_sse_comment("ping")
        else:
            yield encode_sse_event(
                envelope, event_id=f"{run_id}:{seq}", retry_ms=retry_ms if seq == 1 else None
            )


async def error_stream(error: ServiceError, ctx: StreamContext) -> AsyncIterator[bytes]:
    """Yield an `error` event and `end` for a request that could not start a run."""
    stream_id = uuid.uuid4().hex
    for seq, envelope in enumerate((error_event_envelope(error, ctx), end_envelope(ctx)), 1):
        yield encode_sse_event(envelope, event_id=f"{stream_id}:{seq}")

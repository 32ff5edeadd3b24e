"""The design this project replaces, for the benchmark: Flask, a new loop and agent per request.

The naive design: a synchronous Flask app whose stream route creates a new event loop for
every request, builds a whole new agent with `open_agent_service` (data database, SQLite
checkpointer, ChatOpenAI, compiled graph) inside it, starts the question with the runner,
and drives the loop step by step from the response generator, yielding one SSE frame per
event. The frames are the service's own (`stream_envelopes`, `encode_sse_event`), so the
client reads the same bytes as from `python -m app`.

Served by Werkzeug's threaded server (`threaded=True`: one OS thread per connection,
Flask's development server), as the legacy service ran; its listen backlog is raised from
Werkzeug's 128 to 1024 so that a burst of connections is not turned into SYN retransmits
(the same courtesy Hypercorn gets from the kernel's somaxconn; see bench/README.md).

`python -m bench.peers.flask_reference --port 8090` (settings from the environment, as `python -m
app`: OPENAI_BASE_URL, CHECKPOINT_DATABASE_URL, DATA_DIR, ...).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import threading
from collections.abc import Iterator
from contextlib import AsyncExitStack
from typing import Any

import openai
import werkzeug.serving
from flask import Flask, Response, request
from langchain_openai import ChatOpenAI

from app.asking.thread_ids import ThreadIdClock
from app.asking.validation import validate_ask_request
from app.streaming.events import StreamContext, end_envelope, error_event_envelope, stream_envelopes
from app.streaming.ids import format_event_id
from app.streaming.sse import SSE_HEADERS, encode_sse_event
from config import Settings
from react_agent.errors import ServiceError
from react_agent.graph.llm import build_chat_model
from react_agent.runs.events.events import NodeFinished
from react_agent.service import open_agent_service

LISTEN_BACKLOG = 1024

STREAM_PATH = "/api/v0/ask_react_agent_stream"


class _LockedClock(ThreadIdClock):
    """The service's thread-id clock, made safe for Werkzeug's request threads."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()

    def next_ms(self) -> int:
        with self._lock:
            return super().next_ms()


def create_flask_app(settings: Settings | None = None) -> Flask:
    """Return the naive Flask app (one stream route and a health check)."""
    settings = settings or Settings()
    app = Flask(__name__)
    clock = _LockedClock()

    @app.get("/health")
    def health() -> dict[str, Any]:
        return {"ok": True}

    @app.post(STREAM_PATH)
    def ask_stream() -> Response:
        payload = request.get_json(force=True, silent=True)
        accept_language = request.headers.get("Accept-Language")
        try:
            if not isinstance(payload, dict):
                raise ServiceError(400, "INVALID_JSON", "the body must be a JSON object")
            ask = validate_ask_request(payload, clock, accept_language=accept_language)
        except ServiceError as error:
            ctx = StreamContext("", "", "zh-CN")
            frames = [error_event_envelope(error, ctx), end_envelope(ctx)]
            body = b"".join(encode_sse_event(f) for f in frames)
            return Response(body, headers=SSE_HEADERS)
        ctx = StreamContext(ask.thread_id, ask.user_id, ask.lang)
        return Response(
            _generate(settings, ask.question, ask.thread_id, ask.lang, ctx),
            headers=SSE_HEADERS,
        )

    return app


def per_request_model(settings: Settings, http_client: Any) -> ChatOpenAI:
    """ChatOpenAI as `react_agent.graph.llm.build_chat_model` makes it, on its own HTTP client.

    langchain-openai shares one cached async HTTP client per base URL; with a new event
    loop per request, the second request fails with "Event loop is closed" on the first
    request's pooled connection. A fresh client per request (closed with the agent) is the
    least the naive design needs to work at all.
    """
    return build_chat_model(settings, http_async_client=http_client)


def _generate(
    settings: Settings, question: str, thread_id: str, lang: str, ctx: StreamContext
) -> Iterator[bytes]:
    """Answer the naive way: a new loop, a new agent, the loop driven one event at a time."""
    loop = asyncio.new_event_loop()
    stack = AsyncExitStack()
    seq = 0
    try:
        http_client = openai.DefaultAsyncHttpxClient()
        stack.push_async_callback(http_client.aclose)
        model = per_request_model(settings, http_client)
        service = loop.run_until_complete(
            stack.enter_async_context(open_agent_service(settings, model=model))
        )
        try:
            runner = service.require_runner()
            run = loop.run_until_complete(runner.start(question, thread_id, lang=lang))
        except ServiceError as error:
            for envelope in (error_event_envelope(error, ctx), end_envelope(ctx)):
                seq += 1
                yield encode_sse_event(envelope, event_id=format_event_id("flask", seq))
            return
        events = run.follow(0).__aiter__()
        steps = 0
        while True:
            try:
                _, event = loop.run_until_complete(events.__anext__())
            except StopAsyncIteration:
                break
            if event is None:
                continue
            steps = event.step if isinstance(event, NodeFinished) else steps
            for envelope in stream_envelopes(event, ctx, steps):
                seq += 1
                yield encode_sse_event(envelope, event_id=format_event_id(run.run_id, seq))
    finally:
        # Also on a client disconnect (GeneratorExit): close the agent and the loop.
        try:
            loop.run_until_complete(stack.aclose())
        finally:
            loop.close()


def main(argv: list[str] | None = None) -> None:
    """Serve the reference app with Werkzeug's threaded server on 127.0.0.1."""
    parser = argparse.ArgumentParser(prog="python -m bench.peers.flask_reference")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8090)
    args = parser.parse_args(argv)
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        parser.error("the reference server binds loopback only")
    settings = Settings()
    logging.basicConfig(level=settings.log_level.upper())
    werkzeug.serving.BaseWSGIServer.request_queue_size = LISTEN_BACKLOG
    server = werkzeug.serving.make_server(
        args.host, args.port, create_flask_app(settings), threaded=True
    )
    print(f"FLASK_REFERENCE_URL=http://{args.host}:{server.server_port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()

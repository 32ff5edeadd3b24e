"""The stack's floor, for the benchmark: Quart on Hypercorn holding a stream, and nothing else.

What one process of our stack costs before any of the service's work: the same Hypercorn
configuration (`app.server.serving.hypercorn_config`: backlog, limits, access log through
logging), the same event loop (uvloop), a Quart route that reads the JSON body and answers
an SSE stream of the service's frames, made by its own envelope and SSE encoder
(`started`, one `progress` per model call, an answer with its SQL, `end`). Where the
service runs a graph, it waits `--hold-ms` divided over the model calls: no graph, no
checkpointer, no run store, no model client.

A side measured against it shows what the framework alone gives on this machine in the
same run: `started` under a burst of 500 streams, and RSS per open stream in the slow level.

`python -m bench.peers.stack_floor --port 8091 --hold-ms 150 --calls 3`
"""

from __future__ import annotations

import argparse
import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

from quart import Quart, request

from app.http.envelope import success_envelope
from app.server.serving import hypercorn_config, run_event_loop
from app.streaming.sse import SSE_HEADERS, encode_sse_event
from config import Settings

STREAM_PATH = "/api/v0/ask_react_agent_stream"


def _frame(kind: str, **data: Any) -> bytes:
    """Encode one of the service's frames with its own envelope and SSE encoder."""
    return encode_sse_event(success_envelope({"type": kind, **data}, None))


def create_floor_app(hold_s: float, calls: int) -> Quart:
    """Return the Quart app: `/health` and the stream route, holding `hold_s` per question."""
    app = Quart(__name__)

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return success_envelope({}, None)

    @app.post(STREAM_PATH)
    async def stream() -> tuple[AsyncIterator[bytes], int, dict[str, str]]:
        body = await request.get_json()
        user_id = str(body.get("user_id") or "guest")

        async def frames() -> AsyncIterator[bytes]:
            yield _frame("started", thread_id=f"{user_id}:floor")
            yield _frame("progress", node="trim_messages")
            for _ in range(calls):
                await asyncio.sleep(hold_s / calls)
                yield _frame("progress", node="agent")
            yield _frame("completed", response="floor", sql="SELECT 1")
            yield _frame("end")

        return frames(), 200, SSE_HEADERS

    return app


def main(argv: list[str] | None = None) -> None:
    """Serve the floor on 127.0.0.1 with the service's Hypercorn configuration."""
    parser = argparse.ArgumentParser(prog="python -m bench.peers.stack_floor")
    parser.add_argument("--port", type=int, default=8091)
    parser.add_argument("--hold-ms", type=float, default=150.0)
    parser.add_argument("--calls", type=int, default=3)
    args = parser.parse_args(argv)
    settings = Settings(host="127.0.0.1", port=args.port)
    logging.basicConfig(level=settings.log_level.upper())
    config = hypercorn_config(settings)
    app = create_floor_app(args.hold_ms / 1000, max(1, args.calls))

    from hypercorn.asyncio import serve

    run_event_loop(serve(app, config))  # type: ignore[arg-type]


if __name__ == "__main__":
    main()

"""The stream's events (started, progress, token, completed, error, end) from a run's events."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.envelope import error_envelope, success_envelope
from app.final_data import build_final_data
from config import node_display
from react_agent.errors import ServiceError
from react_agent.graph.node_names import END, QUEUED, START
from react_agent.runs.events import (
    NodeFinished,
    RunEvent,
    RunFailed,
    RunFinished,
    RunStarted,
    RunWaiting,
    TokenStreamed,
)
from react_agent.timestamps import now_timestamp


@dataclass(frozen=True)
class StreamContext:
    """Who the stream is for: its thread, user and language."""

    thread_id: str
    user_id: str
    lang: str


def stream_envelopes(event: RunEvent, ctx: StreamContext, steps: int) -> list[dict[str, Any]]:
    """Return the envelopes one run event becomes on the stream, in order.

    Args:
        event: The run's event.
        ctx: The stream's thread, user and language.
        steps: Nodes finished so far (numbers the `__end__` step).

    """
    if isinstance(event, RunStarted | RunWaiting):
        # A run that waited sent `started` with its first RunWaiting; the stream's
        # publisher keeps only the first `started` of a run.
        started = {
            "type": "started",
            "thread_id": ctx.thread_id,
            "conversation_id": ctx.thread_id,
            "user_id": ctx.user_id,
            "timestamp": now_timestamp(),
        }
        if isinstance(event, RunStarted):
            return [_ok(started, ctx), _ok(progress_data(START, 0, ctx), ctx)]
        queued = progress_data(QUEUED, 0, ctx)
        queued["reason"] = event.reason
        if event.position is not None:
            queued["position"] = event.position
        return [_ok(started, ctx), _ok(queued, ctx)]
    if isinstance(event, NodeFinished):
        data = progress_data(event.node, event.step, ctx)
        if event.tool_names:
            data["tool_name"] = ", ".join(event.tool_names)
            data["tool_names"] = event.tool_names
        return [_ok(data, ctx)]
    if isinstance(event, TokenStreamed):
        return [_ok({"type": "token", "content": event.content, "thread_id": ctx.thread_id}, ctx)]
    if isinstance(event, RunFinished):
        completed = {"type": "completed", **build_final_data(event.result, ctx.user_id)}
        return [
            _ok(progress_data(END, steps + 1, ctx), ctx),
            _ok(completed, ctx),
            end_envelope(ctx),
        ]
    assert isinstance(event, RunFailed)
    return [error_event_envelope(event.error, ctx), end_envelope(ctx)]


def progress_data(node: str, step: int, ctx: StreamContext) -> dict[str, Any]:
    """Return a `progress` event's data for a node, with its display name and icon."""
    return {
        "type": "progress",
        "node": node,
        **node_display(node, ctx.lang),
        "thread_id": ctx.thread_id,
        "step": step,
        "timestamp": now_timestamp(),
    }


def error_event_envelope(error: ServiceError, ctx: StreamContext) -> dict[str, Any]:
    """Return an `error` event: the error envelope with `type` in its data."""
    body = error_envelope(error, ctx.lang, conversation_id=ctx.thread_id or None)
    body["data"] = {"type": "error", **body["data"]}
    return body


def end_envelope(ctx: StreamContext) -> dict[str, Any]:
    """Return the `end` event that always closes a stream."""
    return _ok({"type": "end", "thread_id": ctx.thread_id}, ctx)


def _ok(data: dict[str, Any], ctx: StreamContext) -> dict[str, Any]:
    return success_envelope(data, ctx.lang)

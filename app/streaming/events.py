"""The stream's events (started, progress, tool, token, completed, interrupt, error, end)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.asking.replies.approval_data import build_awaiting_approval_data
from app.asking.replies.final_data import build_final_data
from app.asking.replies.guard_reasons import guard_reason_for_people
from app.http.envelope import error_envelope, success_envelope
from config import node_display
from react_agent.errors import ServiceError
from react_agent.graph.node_names import END, QUEUED, SOURCE_WAIT, START
from react_agent.memory.retrieval.retriever import SEARCH_EXAMPLES
from react_agent.runs.events.events import (
    NodeFinished,
    RunEvent,
    RunFailed,
    RunFinished,
    RunStarted,
    RunWaiting,
    SourceWaiting,
    TokenStreamed,
)
from react_agent.runs.events.tool_events import ToolCalled, ToolReturned


@dataclass(frozen=True)
class StreamContext:
    """Who the stream is for: its thread, user and language, and whether it wants tool events."""

    thread_id: str
    user_id: str
    lang: str
    stream_tools: bool = False
    """Whether the client asked for tool_call and tool_result events."""
    conversation_id_ignored: bool = False
    """The request's conversation_id lost to its thread_id (said in started and completed)."""


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
            "timestamp": event.timestamp,
        }
        if ctx.conversation_id_ignored:
            started["conversation_id_ignored"] = True
        if isinstance(event, RunStarted):
            return [
                _ok(started, ctx, "STREAM_STARTED"),
                _progress(START, 0, ctx, event.timestamp),
            ]
        queued = _progress(QUEUED, 0, ctx, event.timestamp)
        queued["data"]["reason"] = event.reason
        if event.position is not None:
            queued["data"]["position"] = event.position
        return [_ok(started, ctx, "STREAM_STARTED"), queued]
    if isinstance(event, SourceWaiting):  # a statement waits for its turn on a busy source
        waiting = _progress(SOURCE_WAIT, event.step, ctx, event.timestamp)
        waiting["data"].update(source=event.source, ahead=event.ahead)
        return [waiting]
    if isinstance(event, NodeFinished):
        progress = _progress(event.node, event.step, ctx, event.timestamp)
        if event.tool_names:
            progress["data"]["tool_name"] = ", ".join(event.tool_names)
            progress["data"]["tool_names"] = event.tool_names
        if event.subagent is not None:
            progress["data"]["subagent"] = event.subagent
        if event.answer_repair is not None:  # review_answer sent the answer back once
            progress["data"]["answer_repair"] = event.answer_repair
        return [progress]
    if isinstance(event, ToolCalled | ToolReturned):
        return [tool_envelope(event, ctx)] if ctx.stream_tools else []
    if isinstance(event, TokenStreamed):
        return _token_envelopes(event, ctx)
    if isinstance(event, RunFinished) and event.result.approval is not None:
        # The run stopped for a person's decision (SQL approval): no answer yet.
        data = build_awaiting_approval_data(
            event.result, ctx.user_id, ctx.lang, timestamp=event.timestamp
        )
        return [_ok({"type": "interrupt", **data}, ctx), end_envelope(ctx)]
    if isinstance(event, RunFinished):
        final = build_final_data(
            event.result,
            ctx.user_id,
            conversation_id_ignored=ctx.conversation_id_ignored,
            timestamp=event.timestamp,
        )
        completed = {"type": "completed", **final}
        return [
            _progress(END, steps + 1, ctx, event.timestamp),
            _ok(completed, ctx),
            end_envelope(ctx),
        ]
    assert isinstance(event, RunFailed)
    return [error_event_envelope(event.error, ctx, event.timestamp), end_envelope(ctx)]


def progress_data(node: str, step: int, ctx: StreamContext, timestamp: str) -> dict[str, Any]:
    """Return a `progress` event's data for a node, with its display name and icon."""
    return {
        "type": "progress",
        "node": node,
        **node_display(node, ctx.lang),
        "thread_id": ctx.thread_id,
        "step": step,
        "timestamp": timestamp,
    }


def tool_envelope(event: ToolCalled | ToolReturned, ctx: StreamContext) -> dict[str, Any]:
    """Return a `tool_call` or `tool_result` event (sent only with `stream_tools`)."""
    if isinstance(event, ToolCalled):
        data: dict[str, Any] = {
            "type": "tool_call",
            "tool_call_id": event.tool_call_id,
            "tool_name": event.tool_name,
            "args": event.args,
        }
        if event.sql is not None:
            data["sql"] = event.sql
        key = "STREAM_TOOL_CALL"
    else:
        data = {
            "type": "tool_result",
            "tool_call_id": event.tool_call_id,
            "tool_name": event.tool_name,
            "status": event.status,
            "row_count": event.row_count,
            "columns": event.columns,
            "rows": event.rows,
            "is_limited": event.is_limited,
            "result_id": event.result_id,
            "duration_ms": event.duration_ms,
        }
        if event.error is not None:
            data["error"] = event.error
            if event.status == "refused":  # the guard's reason in the person's language
                data["error_message"] = guard_reason_for_people(event.error, ctx.lang)
        if event.example_ids is not None:
            data.update(example_ids=event.example_ids, example_count=len(event.example_ids))
        if event.rejected:
            data["rejected"] = True  # a person said no at approval: not a failure
        key = "STREAM_TOOL_RESULT"
    if event.tool_name == SEARCH_EXAMPLES:
        data["auto"] = event.auto  # true: the service searched before the model's first call
    data.update(step=event.step, thread_id=ctx.thread_id, timestamp=event.timestamp)
    if event.subagent is not None:
        data["subagent"] = event.subagent
    return _ok(data, ctx, key, tool_name=event.tool_name)


def main_step(event: RunEvent, steps: int) -> int:
    """Return the main graph's step count after `event` (sub-agents count their own)."""
    if isinstance(event, NodeFinished) and event.subagent is None:
        return event.step
    return steps


def _token_envelopes(event: TokenStreamed, ctx: StreamContext) -> list[dict[str, Any]]:
    # Old clients add every token to the answer, so a sub-agent's text is opt-in.
    if event.subagent is not None and not ctx.stream_tools:
        return []
    data: dict[str, Any] = {"type": "token", "content": event.content, "thread_id": ctx.thread_id}
    if event.subagent is not None:
        data["subagent"] = event.subagent
    return [_ok(data, ctx)]


def error_event_envelope(
    error: ServiceError, ctx: StreamContext, timestamp: str | None = None
) -> dict[str, Any]:
    """Return an `error` event: the error envelope with `type` in its data (at `timestamp`)."""
    body = error_envelope(
        error, ctx.lang, conversation_id=ctx.thread_id or None, timestamp=timestamp
    )
    body["data"] = {"type": "error", **body["data"]}
    return body


def end_envelope(ctx: StreamContext) -> dict[str, Any]:
    """Return the `end` event that always closes a stream."""
    return _ok({"type": "end", "thread_id": ctx.thread_id}, ctx)


def _progress(node: str, step: int, ctx: StreamContext, timestamp: str) -> dict[str, Any]:
    data = progress_data(node, step, ctx, timestamp)
    return _ok(data, ctx, "STREAM_PROGRESS", display_name=data["display_name"])


def _ok(
    data: dict[str, Any], ctx: StreamContext, key: str = "SUCCESS", **params: object
) -> dict[str, Any]:
    return success_envelope(data, ctx.lang, message_key=key, **params)

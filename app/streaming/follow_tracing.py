"""A stream that resumes a run: a `follow run` span linked to the trace that started it.

A reconnect (`Last-Event-ID`) is a request of its own, so a trace of its own; on
PostgreSQL it may land on a worker that does not run the question. Its span links to the
request span of the run's owner (stored with the run as a `traceparent`), whose child
is the run's span, so the follower's trace leads to the run's, on whichever worker.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from opentelemetry import trace
from opentelemetry.trace import Link, SpanContext, TraceFlags

from react_agent.observability.tracing import tracer
from react_agent.runs.store.events import RunRecord

FOLLOW_SPAN = "follow run"


def linked_follow(
    frames: AsyncIterator[bytes], record: RunRecord, *, remote: bool
) -> AsyncIterator[bytes]:
    """Return `frames` sent inside a `follow run` span linked to the run's trace.

    Called in the request's context, so the span is a child of the request's span; it
    ends when the stream does.

    Args:
        frames: The stream's body.
        record: The run as the store knows it (its `trace_parent`, if traces were on).
        remote: Whether another process owns the run.

    """
    owner = span_context_of(record.trace_parent)
    span = tracer().start_span(
        FOLLOW_SPAN,
        links=[Link(owner, {"sqlagent.link": "run_request"})] if owner is not None else (),
        attributes={
            "sqlagent.run_id": record.run_id,
            "sqlagent.thread_id": record.thread_id,
            "sqlagent.follow.remote": remote,
        },
    )
    return _inside(frames, span)


async def _inside(frames: AsyncIterator[bytes], span: trace.Span) -> AsyncIterator[bytes]:
    try:
        async for frame in frames:
            yield frame
    finally:
        span.end()
        await frames.aclose()  # type: ignore[attr-defined]


def span_context_of(trace_parent: str | None) -> SpanContext | None:
    """Return the remote span a W3C `traceparent` names, or None when it names none."""
    parts = (trace_parent or "").split("-")
    if len(parts) != 4 or len(parts[1]) != 32 or len(parts[2]) != 16:
        return None
    try:
        trace_id, span_id, flags = int(parts[1], 16), int(parts[2], 16), int(parts[3], 16)
    except ValueError:
        return None
    context = SpanContext(trace_id, span_id, is_remote=True, trace_flags=TraceFlags(flags))
    return context if context.is_valid else None

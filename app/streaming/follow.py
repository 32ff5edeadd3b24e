"""Following a streamed run: its stored events as frames, from any point, on any worker."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable

from app.streaming.events import StreamContext, end_envelope, error_event_envelope
from app.streaming.formats import StreamFormat
from app.streaming.ids import format_event_id
from app.streaming.runs import StreamRuns
from react_agent.errors import ServiceError
from react_agent.runs.events.event_log import Batch
from react_agent.runs.store.events import RUNNING, Payload, RunRecord


async def batches_to_resume(
    runs: StreamRuns,
    run_id: str,
    after: int,
    heartbeat: float,
    may_read: Callable[[RunRecord], bool] = lambda record: True,
) -> tuple[RunRecord, AsyncIterator[Batch[Payload]]] | None:
    """Return the run and its event batches after `after`, or None if nothing more is left.

    A run `may_read` refuses (another user's) is as an unknown one: None.
    """
    record = await runs.store.record(run_id) if run_id else None
    if record is None or not may_read(record):
        return None
    batches = runs.follow(run_id, after, heartbeat)
    if record.status == RUNNING:
        return record, batches
    try:
        # The run has ended, so this answers at once: its next events, or none (204).
        first = await anext(batches)
    except StopAsyncIteration:
        return None
    return record, _prepend(first, batches)


async def _prepend(
    first: Batch[Payload], rest: AsyncIterator[Batch[Payload]]
) -> AsyncIterator[Batch[Payload]]:
    try:
        yield first
        async for batch in rest:
            yield batch
    finally:
        await rest.aclose()  # type: ignore[attr-defined]


def follow_run(
    runs: StreamRuns,
    run_id: str,
    *,
    after: int,
    wire: StreamFormat,
    heartbeat: float,
    retry_ms: int,
    batches: AsyncIterator[Batch[Payload]] | None = None,
) -> AsyncIterator[bytes]:
    """Return the run's stored events as frames from sequence `after` on, with heartbeats.

    Args:
        runs: The streamed runs of this process.
        run_id: The run to follow (on any worker).
        after: The last sequence number the client has.
        wire: SSE or NDJSON.
        heartbeat: Idle seconds before a heartbeat frame (STREAM_HEARTBEAT).
        retry_ms: The reconnect delay the first event tells an SSE client (STREAM_RETRY_MS).
        batches: The run's batches when already opened (`batches_to_resume`).

    """
    return _frames(run_id, batches or runs.follow(run_id, after, heartbeat), wire, retry_ms)


async def _frames(
    run_id: str, batches: AsyncIterator[Batch[Payload]], wire: StreamFormat, retry_ms: int
) -> AsyncIterator[bytes]:
    # Runs outside the request context, so everything it needs is passed in. The events
    # already stored go out in one write: under load a node's progress and tool events
    # come together, and each write costs the server a trip through Quart and Hypercorn.
    async for batch in batches:
        yield b"".join(
            wire.heartbeat
            if envelope is None
            else wire.encode_event(
                envelope,
                event_id=format_event_id(run_id, seq),
                retry_ms=retry_ms if seq == 1 else None,
            )
            for seq, envelope in batch
        )


async def error_stream(
    error: ServiceError, ctx: StreamContext, wire: StreamFormat
) -> AsyncIterator[bytes]:
    """Yield an `error` event and `end` for a request that could not start a run."""
    stream_id = uuid.uuid4().hex
    for seq, envelope in enumerate((error_event_envelope(error, ctx), end_envelope(ctx)), 1):
        yield wire.encode_event(envelope, event_id=format_event_id(stream_id, seq))


def follow_in_trace(
    frames: AsyncIterator[bytes], record: RunRecord, this_process: str, *, traced: bool
) -> AsyncIterator[bytes]:
    """Return a resumed stream's frames, in a span linked to the run's trace if `traced`.

    Called in the request whose span (app/observability/http_tracing) says `traced`; the
    OpenTelemetry SDK is imported only then.
    """
    if not traced:
        return frames
    from app.streaming.follow_tracing import linked_follow

    return linked_follow(frames, record, remote=record.owner != this_process)

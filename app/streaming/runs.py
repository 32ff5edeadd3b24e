"""Streamed runs: registered in the run store (copied there when it is shared), and followed.

A worker follows its own runs' envelopes directly (made from the run's log, or on a shared
store those stored so far) and asks the store only about runs on other workers: the read
of a run here crosses into react_agent once (the log's wait loop) and back once (the
envelopes it makes), as the sync road does.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

from app.streaming.events import StreamContext, end_envelope, error_event_envelope
from app.streaming.run_envelopes import RunEnvelopes
from react_agent.errors import ServiceError
from react_agent.log_context import current_trace_parent
from react_agent.runs.events.event_log import Batch, EventLog
from react_agent.runs.run import Run
from react_agent.runs.store.events import Payload, RunEventStore, RunRecord

OwnEnvelopes = RunEnvelopes | EventLog[Payload]
"""A run of this worker as its followers here read it: made from its log, or as stored."""

logger = logging.getLogger(__name__)

FINISHED_RUN_TTL = 120.0
"""Seconds a finished run stays resumable by default (RUN_EVENTS_TTL): a client that lost the
last events gets them."""


def abandoned_run_envelopes(record: RunRecord) -> list[Payload]:
    """Return the `error` and `end` events that close a run whose worker died."""
    ctx = StreamContext(record.thread_id, record.user_id, record.lang)
    error = ServiceError(
        503, "RUN_ABANDONED", "the worker running this question stopped", can_retry=True
    )
    return [error_event_envelope(error, ctx), end_envelope(ctx)]


def cancelled_by_user() -> ServiceError:
    """Return the error a run cancelled through the cancel endpoint ends with."""
    return ServiceError(503, "RUN_CANCELLED", "the run was cancelled at its user's request")


class StreamRuns:
    """Registers each streamed run in the store, follows it, cancels runs nobody follows.

    A run's envelopes are made from its own events (`RunEnvelopes`), the same every time
    they are made, so a client that reconnects gets the very bytes it would have had.
    Followers on this worker read them here; a shared store (PostgreSQL) gets each one
    copied, so that every other worker reads them there; here they are then read as
    stored (an event is shown once stored: a client that reconnects elsewhere finds it).

    Args:
        store: Where the runs are registered (shared by every worker on PostgreSQL).
        resume_grace: Seconds to wait for a client that left to reconnect (on any worker).
        open_streams: A gauge (inc/dec) of the streams following a run here, or None.
        finished_ttl: Seconds an ended run of this worker stays readable here
            (RUN_EVENTS_TTL, as the store in memory keeps its record; on a shared store
            FINISHED_RUN_TTL at most).

    """

    def __init__(
        self,
        store: RunEventStore,
        resume_grace: float,
        open_streams: Any | None = None,
        *,
        finished_ttl: float = FINISHED_RUN_TTL,
    ) -> None:
        self.store = store
        self.resume_grace = resume_grace
        self.open_streams = open_streams
        # On a shared store, an ended run is read from memory here for a while at most;
        # after it this worker reads the tables like any other.
        shared = store.copies_payloads
        self.finished_ttl = min(finished_ttl, FINISHED_RUN_TTL) if shared else finished_ttl
        self._own: dict[str, OwnEnvelopes] = {}
        """This worker's runs, until `finished_ttl` after they ended."""
        self._followers: dict[str, int] = {}
        self._runs: dict[str, Run] = {}
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Task[Any]] = set()

    async def publish(self, run: Run, ctx: StreamContext) -> None:
        """Register the run in the store and follow it here (copied to a shared store)."""
        # The request's trace, so that a follower on another worker can link to it.
        record = RunRecord(
            run.run_id,
            ctx.thread_id,
            ctx.user_id,
            ctx.lang,
            self.store.owner,
            trace_parent=current_trace_parent(),
        )
        envelopes = RunEnvelopes(run.log, ctx)
        await self.store.open_run(record, lambda: run.cancel(cancelled_by_user()))
        self._runs[run.run_id] = run
        self._own[run.run_id] = EventLog() if self.store.copies_payloads else envelopes
        self._spawn(self._keep(run, envelopes))

    def follow(self, run_id: str, after: int, heartbeat: float) -> AsyncIterator[Batch[Payload]]:
        """Follow a run (this worker's here, another's through the store), counted meanwhile.

        Yields batches: every event already there comes at once, so a stream writes them
        in one frame (`[(seq, None)]` after `heartbeat` idle seconds).
        """
        return self._counted(run_id, after, heartbeat)

    async def _counted(
        self, run_id: str, after: int, heartbeat: float
    ) -> AsyncIterator[Batch[Payload]]:
        self._attach(run_id)
        if self.open_streams is not None:
            self.open_streams.inc()
        own = self._own.get(run_id)
        batches = (
            own.follow_batches(after, idle_timeout=heartbeat)
            if own is not None
            else self.store.follow_batches(
                run_id, after, idle_timeout=heartbeat, on_abandoned=abandoned_run_envelopes
            )
        )
        try:
            async for batch in batches:
                yield batch
        finally:
            if self.open_streams is not None:
                self.open_streams.dec()
            self._detach(run_id)

    async def _keep(self, run: Run, envelopes: RunEnvelopes) -> None:
        """Copy the run's envelopes to a shared store as they come; say when it ended."""
        stored = self._own[run.run_id]
        try:
            if not isinstance(stored, EventLog):
                await run.log.wait_ended()  # followers here read the envelopes from the run
                return
            async for batch in envelopes.follow_batches(0):
                for seq, envelope in batch:
                    assert envelope is not None  # no idle_timeout: no heartbeat
                    try:
                        await self.store.append(run.run_id, seq, envelope)
                    except Exception as exc:
                        # Followers here still get it; others may miss it until the end.
                        logger.warning("could not store event %d of run %s: %s", seq, run, exc)
                    finally:
                        stored.append(envelope)
        finally:
            if isinstance(stored, EventLog):
                stored.end()
            asyncio.get_running_loop().call_later(
                self.finished_ttl, self._own.pop, run.run_id, None
            )
            self._runs.pop(run.run_id, None)
            try:
                await self.store.finish(run.run_id)
            except Exception as exc:
                logger.warning("could not mark run %s ended: %s", run.run_id, exc)

    def _attach(self, run_id: str) -> None:
        self._followers[run_id] = self._followers.get(run_id, 0) + 1
        timer = self._timers.pop(run_id, None)
        if timer is not None:
            timer.cancel()

    def _detach(self, run_id: str) -> None:
        left = self._followers[run_id] = self._followers.get(run_id, 1) - 1
        if left > 0:
            return
        del self._followers[run_id]
        run = self._runs.get(run_id)
        if run is None or run.done:
            return  # not ours: its owner watches for followers on every worker
        if self.resume_grace <= 0:
            run.cancel()
        else:
            self._arm(run_id, self.resume_grace)

    def _arm(self, run_id: str, delay: float) -> None:
        loop = asyncio.get_running_loop()
        self._timers[run_id] = loop.call_later(
            delay, lambda: self._spawn(self._cancel_if_unfollowed(run_id))
        )

    async def _cancel_if_unfollowed(self, run_id: str) -> None:
        """Cancel the run unless a follower (here or on another worker) came meanwhile."""
        self._timers.pop(run_id, None)
        run = self._runs.get(run_id)
        if run is None or run.done or self._followers.get(run_id):
            return
        try:
            since = await self.store.seconds_since_followed(run_id)
        except Exception as exc:
            logger.warning("could not see whether run %s is followed: %s", run_id, exc)
            since = None
        if since is not None and since < self.resume_grace:
            self._arm(run_id, self.resume_grace - since)
        elif not self._followers.get(run_id):
            run.cancel()

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

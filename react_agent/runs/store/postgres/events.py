"""Run events in PostgreSQL, so a stream can be resumed on any worker of any host."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from psycopg_pool import AsyncConnectionPool

from react_agent.runs.events.event_log import Batch, flatten
from react_agent.runs.store.events import (
    FINISHED,
    RUNNING,
    AbandonedPayloads,
    Payload,
    RunRecord,
    process_owner_id,
)
from react_agent.runs.store.local import InProcessRunEvents
from react_agent.runs.store.locks import ThreadLocks
from react_agent.runs.store.postgres.batches import EventBatches, run_row
from react_agent.runs.store.postgres.follow import RemoteFollower
from react_agent.runs.store.postgres.notifications import (
    CANCEL_CHANNEL,
    EVENTS_CHANNEL,
    RunNotifications,
)
from react_agent.runs.store.postgres.schema import migrate_run_tables
from react_agent.runs.store.postgres.tables import RunTables
from react_agent.storage.postgres_batches import StatementBatches

logger = logging.getLogger(__name__)

THREAD_PREFIX = "thread:"
"""A cancel notification for `thread:<thread_id>` names a thread rather than a run."""

LOCAL_TTL = 120.0
"""Most seconds this process keeps the runs it executed in memory too, for its own followers
(never longer than RUN_EVENTS_TTL: the owner must not replay a run the others have forgotten;
after it, the owner reads the tables like anyone)."""


class PostgresRunEvents:
    """Run events in the `runs` and `run_events` tables, followed through LISTEN/NOTIFY.

    The owner keeps its runs in memory as well, so its own followers read no table. A
    follower elsewhere reads the tables when notified and watches the owner's liveness
    claim (store/postgres/follow: a dead owner's run is closed by its followers). The owner
    sends an EVENTS_CHANNEL notice per event only for runs someone follows elsewhere:
    most runs are followed by their own process alone, and a NOTIFY per event (whose
    commits PostgreSQL serializes) was the dearest part of storing it.

    Args:
        pool: The checkpointer's pool (its database holds the run tables).
        locks: Claims shared by every process (advisory locks).
        ttl: Seconds an ended run stays resumable (RUN_EVENTS_TTL).
        max_run_seconds: Longest a run may take; a `running` row older than that plus
            `ttl` was left by a dead owner nobody followed, and expires too.
        writer: The checkpointer's statement writer, to send the events in its statements
            (one commit for a step's checkpoint and its events); None: one of its own,
            on `pool`.

    """

    def __init__(
        self,
        pool: AsyncConnectionPool,
        locks: ThreadLocks,
        *,
        ttl: float,
        max_run_seconds: float,
        writer: StatementBatches | None = None,
    ) -> None:
        self.pool = pool
        self.tables = RunTables(pool)
        self._own_writer = writer is None
        self.writer = writer or StatementBatches(pool.connection)
        """Writes the events: the checkpointer's writer, with its writes, or one of its own."""
        self.batches = EventBatches(self.writer, str(pool.conninfo))
        self.locks = locks
        self.ttl = ttl
        self.max_run_seconds = max_run_seconds
        self.owner = process_owner_id()
        self.copies_payloads = True
        self.local = InProcessRunEvents(min(ttl, LOCAL_TTL))
        self.notifications = RunNotifications(
            pool,
            self._cancel_local,
            on_listening=self._cancel_asked_while_not_listening,
            on_follow=self._followed_elsewhere,
        )
        self.remote = RemoteFollower(self.tables, self.notifications, locks, self.ensure_tables)
        self._alive: set[str] = set()
        """Runs of this process whose liveness claim the store holds (until `finish`)."""
        self._unstored: dict[str, RunRecord] = {}
        """Runs of this process whose `runs` row is not stored yet (see open_run)."""
        self._notified: set[str] = set()
        """Runs of this process followed elsewhere: their events are notified."""
        self._tasks: set[asyncio.Task[Any]] = set()
        self._migrated = False
        self._migrating = asyncio.Lock()
        self._expiry: asyncio.Task[None] | None = None
        self.on_thread_cancel: Callable[[str], bool] | None = None
        """Interrupts this process's question on a thread (the runner's, once built)."""

    def start(self) -> None:
        """Start listening for notifications and expiring old runs in the background."""
        self.notifications.start()
        if self._expiry is None:
            self._expiry = asyncio.create_task(self._expire_forever(), name="run-events-expiry")

    async def ensure_tables(self) -> None:
        """Create or migrate the run tables once per process."""
        if self._migrated:
            return
        async with self._migrating:
            if not self._migrated:
                async with self.tables.connection() as connection:
                    await migrate_run_tables(connection)
                self._migrated = True

    async def open_run(self, record: RunRecord, cancel: Callable[[], None]) -> None:
        """Claim the run's liveness and keep the run in memory; its row goes with its first event.

        Its payloads are those appended: the owner reads each one once it is stored (its
        StreamRuns, or this store's memory), as every other worker does.

        The `runs` row is not written here but in the statement that stores the run's
        first event (store/postgres/batches): a statement and a commit less per question,
        and nobody elsewhere can look for the run before then, since its id reaches
        clients in its events only.
        """
        await self.ensure_tables()
        # Held already when the runner claimed the thread for this run (no round trip).
        await self.locks.hold_run(record.run_id)
        self._alive.add(record.run_id)
        self._unstored[record.run_id] = record
        await self.local.open_run(record, cancel)

    async def append(self, run_id: str, seq: int, payload: Payload) -> None:
        """Store the event, then show it to this process's followers.

        Stored first: a client may reconnect anywhere after any event it was sent, and if
        this process died right then, the survivor must number its closing events after it.
        """
        record = await self.local.record(run_id)
        assert record is not None
        unstored = self._unstored.get(run_id)
        try:
            await self.batches.store(
                run_id,
                seq,
                record.thread_id,
                payload,
                notify=run_id in self._notified,
                row=None if unstored is None else run_row(unstored, RUNNING),
            )
            self._unstored.pop(run_id, None)
        finally:
            # Even when PostgreSQL failed: the followers here need not lose the event.
            await self.local.append(run_id, seq, payload)

    async def finish(self, run_id: str) -> None:
        """Mark the run ended (after its last event), then free its liveness claim."""
        try:
            await self.local.finish(run_id)
            # Notified always, in a batch of events under load (store/postgres/batches).
            # A run none of whose events could be stored gets its row, finished, now.
            unstored = self._unstored.get(run_id)
            row = None if unstored is None else run_row(unstored, FINISHED)
            await self.batches.end(run_id, row)
        finally:
            self._unstored.pop(run_id, None)
            self._notified.discard(run_id)
            if run_id in self._alive:
                self._alive.discard(run_id)
                self.locks.end_run(run_id)  # freed with the next claim statement

    async def record(self, run_id: str) -> RunRecord | None:
        """Return the run from memory if it is ours, else from the table."""
        local = await self.local.record(run_id)
        if local is not None:
            return local
        await self.ensure_tables()
        rows = await self.tables.fetch(
            "SELECT run_id, thread_id, user_id, lang, owner, status, trace_parent"
            " FROM runs WHERE run_id = %s",
            (run_id,),
        )
        return RunRecord(*rows[0]) if rows else None

    def follow(
        self, run_id: str, after: int, *, idle_timeout: float, on_abandoned: AbandonedPayloads
    ) -> AsyncIterator[tuple[int, Payload | None]]:
        """Yield the run's events after `after` until it ended; `(seq, None)` when idle."""
        return flatten(
            self.follow_batches(run_id, after, idle_timeout=idle_timeout, on_abandoned=on_abandoned)
        )

    async def follow_batches(
        self, run_id: str, after: int, *, idle_timeout: float, on_abandoned: AbandonedPayloads
    ) -> AsyncIterator[Batch[Payload]]:
        """Like `follow`, each read's events in one batch."""
        if self.local.has(run_id):
            async for batch in self.local.follow_batches(run_id, after, idle_timeout=idle_timeout):
                yield batch
            return
        async for batch in self.remote.follow_batches(
            run_id, after, idle_timeout=idle_timeout, on_abandoned=on_abandoned
        ):
            yield batch

    async def seconds_since_followed(self, run_id: str) -> float | None:
        """Seconds since a follower in another process last said it was there."""
        rows = await self.tables.fetch(
            "SELECT extract(epoch FROM now() - followed_at) FROM runs WHERE run_id = %s",
            (run_id,),
        )
        return float(rows[0][0]) if rows and rows[0][0] is not None else None

    async def request_cancel(self, run_id: str) -> None:
        """Cancel the run here if it is ours, else mark it and tell its owner through NOTIFY.

        The mark is for an owner that was not listening just then: it reads the marks of
        its runs each time it listens again.
        """
        if self.local.has(run_id):
            await self.local.request_cancel(run_id)
        else:
            await self.ensure_tables()
            await self.tables.execute(
                "WITH asked AS (UPDATE runs SET cancel_requested = true"
                " WHERE run_id = %s AND status = 'running')"
                f" SELECT pg_notify('{CANCEL_CHANNEL}', %s)",
                (run_id, run_id),
            )

    async def expire(self) -> int:
        """Delete ended runs older than the TTL (and runs a dead owner left); return how many."""
        await self.ensure_tables()
        return await self.tables.expire(self.ttl, self.max_run_seconds)

    async def aclose(self) -> None:
        """Stop the background tasks and free the claims of runs still open."""
        if self._expiry is not None:
            self._expiry.cancel()
            await asyncio.gather(self._expiry, return_exceptions=True)
        await self.notifications.aclose()
        await self.batches.aclose()
        if self._own_writer:
            await self.writer.aclose()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for run_id in self._alive:
            self.locks.end_run(run_id)
        self._alive.clear()
        await self.local.aclose()

    async def request_thread_cancel(self, thread_id: str) -> None:
        """Ask every process to interrupt the question running on `thread_id`."""
        await self.tables.execute(
            f"SELECT pg_notify('{CANCEL_CHANNEL}', %s)", (THREAD_PREFIX + thread_id,)
        )

    def _cancel_local(self, run_id: str) -> None:
        if run_id.startswith(THREAD_PREFIX):
            if self.on_thread_cancel is not None:
                self.on_thread_cancel(run_id.removeprefix(THREAD_PREFIX))
        elif self.local.has(run_id):
            asyncio.get_running_loop().create_task(self.local.request_cancel(run_id))

    async def _cancel_asked_while_not_listening(self) -> None:
        """Cancel this process's runs whose cancellation was asked for (the mark stays)."""
        await self.ensure_tables()
        rows = await self.tables.fetch(
            "SELECT run_id FROM runs WHERE owner = %s AND status = 'running' AND cancel_requested",
            (self.owner,),
        )
        for (run_id,) in rows:
            self._cancel_local(run_id)

    def _followed_elsewhere(self, run_id: str) -> None:
        """Notify the run's events from now on, and once at once (the follower re-reads)."""
        if run_id in self._alive and run_id not in self._notified:
            self._notified.add(run_id)
            self._spawn(self._notify_events(run_id))

    def _spawn(self, awaitable: Awaitable[None]) -> None:
        """Run `awaitable` in a task that aclose cancels."""
        task = asyncio.ensure_future(awaitable)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _notify_events(self, run_id: str) -> None:
        try:
            await self.tables.execute(f"SELECT pg_notify('{EVENTS_CHANNEL}', %s)", (run_id,))
        except Exception as exc:  # the follower still re-reads within a second
            logger.warning("could not notify the followers of run %s: %s", run_id, exc)

    async def _expire_forever(self) -> None:
        while True:
            try:
                expired = await self.expire()
                if expired:
                    logger.info("expired %d stored runs", expired)
            except Exception as exc:
                logger.warning("could not expire stored runs: %s", exc)
            await asyncio.sleep(min(self.ttl / 2, 60.0))

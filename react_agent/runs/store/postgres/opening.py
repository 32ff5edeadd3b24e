"""The run store on PostgreSQL, opened on a pool of its own beside the checkpointer's."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

from psycopg_pool import AsyncConnectionPool

from react_agent.databases.postgres.pool import open_pool
from react_agent.runs.store.locks import ThreadLocks
from react_agent.runs.store.postgres.events import PostgresRunEvents
from react_agent.runs.store.postgres.locks import PostgresThreadLocks
from react_agent.runs.store.postgres.thread_ids import PostgresThreadIds
from react_agent.runs.store.run_store import RunStore
from react_agent.storage.postgres_batches import StatementBatches


@asynccontextmanager
async def open_postgres_store(
    checkpoint_pool: AsyncConnectionPool,
    *,
    ttl: float,
    max_run_seconds: float,
    pool_options: dict[str, Any],
    locks: ThreadLocks | None = None,
    writer: StatementBatches | None = None,
) -> AsyncIterator[RunStore]:
    """Open the run tables' store, advisory-lock claims and thread ids in the checkpoint database.

    The store gets a pool of its own: the statements a question makes before its stream
    says `started` (its thread id, its row and first events) must not wait for a
    connection of the checkpointer's, which the questions already running hold. Given the
    checkpointer's statement writer, the store's events go in its statements, and its
    statements on this pool while the store is open. The claims are closed last, after
    the runs (closed before this store) and the store have ended.

    Args:
        checkpoint_pool: The checkpointer's pool; its database holds the run tables.
        ttl: Seconds an ended run stays resumable (RUN_EVENTS_TTL).
        max_run_seconds: Longest a run may take (RUN_TIMEOUT).
        pool_options: The PostgreSQL pool options (sizes, lifetimes, timeouts).
        locks: Thread claims to use instead of advisory locks (not closed here).
        writer: The checkpointer's statement writer, which then sends the events too.

    """
    async with AsyncExitStack() as stack:
        if locks is None:
            own = PostgresThreadLocks(checkpoint_pool)
            stack.push_async_callback(own.aclose)
            locks = own
        pool = await open_pool(checkpoint_pool.conninfo, name="run-events", **pool_options)
        stack.push_async_callback(pool.close)
        if writer is not None:
            # The checkpointer's writes go on this pool too, in the statements of the
            # events: running questions hold the checkpointer's connections (reads),
            # and a run's first events must not wait for one of them.
            stack.callback(writer.lend_from(pool.connection))
        events = PostgresRunEvents(
            pool, locks, ttl=ttl, max_run_seconds=max_run_seconds, writer=writer
        )
        events.start()
        stack.push_async_callback(events.aclose)
        yield RunStore(
            locks,
            events,
            PostgresThreadIds(events.tables, events.ensure_tables),
            interrupts=events,
        )

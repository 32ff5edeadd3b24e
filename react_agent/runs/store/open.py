"""Where a process keeps its runs: the one choice of store (memory, or PostgreSQL)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from react_agent.runs.store.local import (
    InProcessRunEvents,
    InProcessThreadIds,
    InProcessThreadLocks,
)
from react_agent.runs.store.locks import ThreadLocks
from react_agent.runs.store.run_store import RunStore

if TYPE_CHECKING:
    from psycopg_pool import AsyncConnectionPool

    from react_agent.storage.postgres_batches import StatementBatches


@asynccontextmanager
async def open_run_store(
    checkpoint_pool: AsyncConnectionPool | None,
    *,
    ttl: float,
    max_run_seconds: float,
    pool_options: dict[str, Any],
    locks: ThreadLocks | None = None,
    writer: StatementBatches | None = None,
) -> AsyncIterator[RunStore]:
    """Open the run store: in the checkpoint database when that is PostgreSQL, else in memory.

    Args:
        checkpoint_pool: The checkpointer's pool when it is PostgreSQL (its database
            holds the run tables and the advisory locks), else None: the runs are kept in
            memory.
        ttl: Seconds an ended run stays resumable (RUN_EVENTS_TTL).
        max_run_seconds: Longest a run may take (RUN_TIMEOUT).
        pool_options: The PostgreSQL pool options (sizes, lifetimes, timeouts).
        locks: Thread claims to use instead of the store's own (not closed here).
        writer: The checkpointer's statement writer, for the events to go in its
            statements (PostgreSQL only).

    """
    if checkpoint_pool is None:
        events = InProcessRunEvents(ttl)
        try:
            yield RunStore(locks or InProcessThreadLocks(), events, InProcessThreadIds())
        finally:
            await events.aclose()
        return
    # Imported here: a process on SQLite never loads the PostgreSQL store.
    from react_agent.runs.store.postgres.opening import open_postgres_store

    async with open_postgres_store(
        checkpoint_pool,
        ttl=ttl,
        max_run_seconds=max_run_seconds,
        pool_options=pool_options,
        locks=locks,
        writer=writer,
    ) as store:
        yield store

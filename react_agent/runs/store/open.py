"""Where a process keeps its runs: the thread claims and the run event store it opens."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from psycopg_pool import AsyncConnectionPool

from react_agent.databases.postgres_pool import open_pool
from react_agent.runs.store.events import InProcessRunEvents, RunEventStore
from react_agent.runs.store.postgres.events import PostgresRunEvents
from react_agent.runs.store.postgres.locks import (
    InProcessThreadLocks,
    PostgresThreadLocks,
    ThreadLocks,
)


def default_locks(checkpoint_pool: AsyncConnectionPool | None) -> ThreadLocks:
    """Return the thread claims: advisory locks on PostgreSQL (every process), else in memory.

    Args:
        checkpoint_pool: The checkpointer's pool when it is PostgreSQL, else None.

    """
    if checkpoint_pool is not None:
        return PostgresThreadLocks(checkpoint_pool)
    return InProcessThreadLocks()


@asynccontextmanager
async def open_run_events(
    checkpoint_pool: AsyncConnectionPool | None,
    locks: ThreadLocks,
    *,
    ttl: float,
    max_run_seconds: float,
    pool_options: dict[str, Any],
) -> AsyncIterator[RunEventStore]:
    """Open the run event store, in the checkpoint database when that is PostgreSQL.

    There it gets a pool of its own: the statements a question makes before its stream
    says `started` (claiming the run, storing its row and first events) must not queue
    behind the checkpoint writes of the questions already running.

    Args:
        checkpoint_pool: The checkpointer's pool when it is PostgreSQL (its database
            holds the run tables), else None: the runs are kept in memory.
        locks: Thread claims shared with the runner.
        ttl: Seconds an ended run stays resumable (RUN_EVENTS_TTL).
        max_run_seconds: Longest a run may take (RUN_TIMEOUT).
        pool_options: The PostgreSQL pool options (sizes, lifetimes, timeouts).

    """
    if checkpoint_pool is None:
        store: RunEventStore = InProcessRunEvents(ttl)
        try:
            yield store
        finally:
            await store.aclose()
        return
    pool = await open_pool(checkpoint_pool.conninfo, name="run-events", **pool_options)
    try:
        postgres = PostgresRunEvents(pool, locks, ttl=ttl, max_run_seconds=max_run_seconds)
        postgres.start()
        try:
            yield postgres
        finally:
            await postgres.aclose()
    finally:
        await pool.close()

"""Where a process keeps its runs: the thread claims and the run event store it opens."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from psycopg_pool import AsyncConnectionPool

from react_agent.runs.event_store import InProcessRunEvents, RunEventStore
from react_agent.runs.postgres_event_store import PostgresRunEvents
from react_agent.runs.thread_locks import InProcessThreadLocks, PostgresThreadLocks, ThreadLocks


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
) -> AsyncIterator[RunEventStore]:
    """Open the run event store, in the checkpoint database when that is PostgreSQL.

    Args:
        checkpoint_pool: The checkpointer's pool when it is PostgreSQL (its database
            holds the run tables), else None: the runs are kept in memory.
        locks: Thread claims shared with the runner.
        ttl: Seconds an ended run stays resumable (RUN_EVENTS_TTL).
        max_run_seconds: Longest a run may take (RUN_TIMEOUT).

    """
    if checkpoint_pool is None:
        store: RunEventStore = InProcessRunEvents(ttl)
        try:
            yield store
        finally:
            await store.aclose()
        return
    postgres = PostgresRunEvents(checkpoint_pool, locks, ttl=ttl, max_run_seconds=max_run_seconds)
    postgres.start()
    try:
        yield postgres
    finally:
        await postgres.aclose()

"""Run event stores in tests: two processes' stores on one PostgreSQL, a clock to drive."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from react_agent.databases.postgres_pool import open_pool
from react_agent.runs.postgres_event_store import PostgresRunEvents
from react_agent.runs.thread_locks import PostgresThreadLocks


@asynccontextmanager
async def open_two_stores(
    database: str, *, ttl: float
) -> AsyncIterator[tuple[PostgresRunEvents, ...]]:
    """Open the run event stores of two processes on `database`, each on its own pool."""
    stores, closers = [], []
    for name in ("process-1", "process-2"):
        pool = await open_pool(database, name=name, max_size=4)
        locks = PostgresThreadLocks(pool)
        stores.append(PostgresRunEvents(pool, locks, ttl=ttl, max_run_seconds=60))
        closers += [pool.close, locks.aclose]
    try:
        yield tuple(stores)
    finally:
        for store in stores:
            await store.aclose()
        for close in reversed(closers):
            await close()


class FakeClock:
    """Monotonic seconds the test moves forward itself."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

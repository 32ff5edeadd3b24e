"""Fixtures of the run tests: the run event store of two processes on one PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from react_agent.databases.postgres_pool import open_pool
from react_agent.runs.postgres_event_store import PostgresRunEvents
from react_agent.runs.thread_locks import PostgresThreadLocks


@pytest.fixture
async def two_stores(postgres_database: str) -> AsyncIterator[tuple[PostgresRunEvents, ...]]:
    """Yield stores on two separate pools of one database: two service processes."""
    stores, closers = [], []
    for name in ("process-1", "process-2"):
        pool = await open_pool(postgres_database, name=name, max_size=4)
        locks = PostgresThreadLocks(pool)
        stores.append(PostgresRunEvents(pool, locks, ttl=60, max_run_seconds=60))
        closers += [pool.close, locks.aclose]
    try:
        yield tuple(stores)
    finally:
        for store in stores:
            await store.aclose()
        for close in reversed(closers):
            await close()

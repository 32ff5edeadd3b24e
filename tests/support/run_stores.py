"""Run event stores in tests: two processes' stores, their LISTEN sessions, a driven clock."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import psycopg

from react_agent.databases.postgres.pool import open_pool
from react_agent.runs.store.postgres.events import PostgresRunEvents
from react_agent.runs.store.postgres.locks import PostgresThreadLocks
from react_agent.runs.store.postgres.notifications import LISTEN_SESSION_NAME


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


RECONNECTED = 30.0
"""Seconds the listeners get to connect again (they retry every second)."""


async def listening_backends(database: str) -> set[int]:
    """Return the pids of the sessions on `database` that listen (their last query, done)."""
    async with await psycopg.AsyncConnection.connect(database, autocommit=True) as connection:
        cursor = await connection.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
            " AND application_name = %s AND state = 'idle' AND query LIKE 'LISTEN %%'",
            (LISTEN_SESSION_NAME,),
        )
        return {pid for (pid,) in await cursor.fetchall()}


async def wait_for_listeners(database: str, count: int, besides: set[int]) -> set[int]:
    """Wait until `count` sessions other than `besides` listen; return their pids."""
    async with asyncio.timeout(RECONNECTED):
        while True:
            fresh = await listening_backends(database) - besides
            if len(fresh) >= count:
                return fresh
            await asyncio.sleep(0.05)


async def terminate(database: str, pids: set[int]) -> None:
    """End those sessions from the server side, as a restart or a network fault would."""
    async with await psycopg.AsyncConnection.connect(database, autocommit=True) as connection:
        for pid in pids:
            await connection.execute("SELECT pg_terminate_backend(%s)", (pid,))

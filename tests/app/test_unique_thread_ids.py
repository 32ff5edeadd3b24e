"""New thread ids stay unique across processes sharing PostgreSQL (the thread_ids table)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator

import pytest

from app.asking.thread_ids import ThreadIdClock, unique_new_thread_id
from react_agent.databases.postgres_pool import open_pool
from react_agent.runs.postgres_event_store import PostgresRunEvents
from react_agent.runs.thread_locks import PostgresThreadLocks

NEW_CONVERSATIONS = 1000
ID_FORMAT = re.compile(r"^guest:\d{17}$")


@pytest.fixture
async def two_processes(postgres_database: str) -> AsyncIterator[list[tuple]]:
    """Yield (clock, store) of two processes on one database."""
    processes, closers = [], []
    for name in ("process-1", "process-2"):
        pool = await open_pool(postgres_database, name=name, max_size=8)
        locks = PostgresThreadLocks(pool)
        store = PostgresRunEvents(pool, locks, ttl=600, max_run_seconds=60)
        processes.append((ThreadIdClock(), store))
        closers += [pool.close, locks.aclose, store.aclose]
    try:
        yield processes
    finally:
        for close in reversed(closers):
            await close()


async def test_an_id_taken_by_another_process_gives_the_next_millisecond(two_processes):
    (clock, here), (_, there) = two_processes
    taken = clock.new_thread_id("guest")
    assert await there.reserve_thread_id(taken)
    given = await unique_new_thread_id(clock, here, "guest", taken)
    assert given != taken and ID_FORMAT.match(given)
    assert given[-17:] > taken[-17:]


async def test_a_thousand_concurrent_new_conversations_over_two_processes_get_distinct_ids(
    two_processes,
):
    async def new_id(n: int) -> str:
        clock, store = two_processes[n % 2]
        return await unique_new_thread_id(clock, store, "guest", clock.new_thread_id("guest"))

    ids = await asyncio.gather(*(new_id(n) for n in range(NEW_CONVERSATIONS)))
    assert len(set(ids)) == NEW_CONVERSATIONS
    assert all(ID_FORMAT.match(thread_id) for thread_id in ids)

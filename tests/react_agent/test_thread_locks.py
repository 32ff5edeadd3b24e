"""Thread claims: one run per thread, also across processes sharing PostgreSQL."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import psycopg
import pytest
from psycopg_pool import AsyncConnectionPool

from react_agent.errors import ServiceError
from react_agent.postgres_pool import open_pool
from react_agent.thread_locks import InProcessThreadLocks, PostgresThreadLocks
from tests.react_agent.test_postgres_database import scalar
from tests.support.postgres import unreachable_postgres_url

THREAD = "wang1:20250131103000001"


@pytest.fixture
async def two_pools(postgres_database: str) -> AsyncIterator[tuple[AsyncConnectionPool, ...]]:
    """Yield two separate pools on one database: stand-ins for two service processes."""
    first = await open_pool(postgres_database, name="process-1", max_size=4)
    second = await open_pool(postgres_database, name="process-2", max_size=4)
    try:
        yield first, second
    finally:
        await first.close()
        await second.close()


def assert_busy(error: ServiceError) -> None:
    assert error.status == 409 and error.error_type == "THREAD_BUSY"
    assert error.can_retry is True


async def test_a_thread_claimed_in_one_process_is_busy_in_another_until_released(two_pools):
    here, there = (PostgresThreadLocks(pool, grace=0.1) for pool in two_pools)

    release = await here.claim(THREAD)
    with pytest.raises(ServiceError) as refused:
        await there.claim(THREAD)
    assert_busy(refused.value)
    other_thread = await there.claim("wang1:other")  # only that thread is taken

    await release()
    release_there = await there.claim(THREAD)
    await release_there()
    await other_thread()


async def test_a_second_claim_in_the_same_process_is_busy_too(two_pools):
    locks = PostgresThreadLocks(two_pools[0], grace=0.1)

    release = await locks.claim(THREAD)
    with pytest.raises(ServiceError) as refused:
        await locks.claim(THREAD)
    assert_busy(refused.value)
    await release()


async def test_a_claim_waits_briefly_for_the_release_of_a_run_that_just_ended(
    postgres_database, two_pools
):
    here, there = (PostgresThreadLocks(pool, grace=10) for pool in two_pools)
    release = await here.claim(THREAD)

    claiming = asyncio.create_task(there.claim(THREAD))
    waiting_sql = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
    deadline = time.monotonic() + 10
    while scalar(postgres_database, waiting_sql) == 0:
        assert time.monotonic() < deadline and not claiming.done()
        await asyncio.sleep(0.05)
    await release()

    release_there = await claiming
    await release_there()


async def test_is_running_is_seen_from_the_other_process(two_pools):
    here, there = (PostgresThreadLocks(pool) for pool in two_pools)
    assert await there.is_running(THREAD) is False

    release = await here.claim(THREAD)
    assert await here.is_running(THREAD) is True
    assert await there.is_running(THREAD) is True
    assert await there.is_running("wang1:other") is False

    await release()
    assert await there.is_running(THREAD) is False


async def test_release_after_the_lock_session_died_does_not_raise_and_frees_the_thread(
    postgres_database, two_pools
):
    here, there = (PostgresThreadLocks(pool, grace=0.1) for pool in two_pools)
    release = await here.claim(THREAD)
    # What a server restart does to the session holding the lock.
    with psycopg.connect(postgres_database, autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_locks "
            "WHERE locktype = 'advisory' AND pid <> pg_backend_pid()"
        )

    await release()

    release_there = await there.claim(THREAD)
    await release_there()


async def test_claims_beyond_the_pools_capacity_get_a_503_instead_of_starving_it(two_pools):
    locks = PostgresThreadLocks(two_pools[0], max_held=1, grace=0.1)
    release = await locks.claim("wang1:one")

    with pytest.raises(ServiceError) as refused:
        await locks.claim("wang1:two")

    assert refused.value.status == 503 and refused.value.error_type == "CHECKPOINTER_UNAVAILABLE"
    await release()
    await (await locks.claim("wang1:two"))()


async def test_a_claim_while_postgres_is_unreachable_is_a_503():
    pool = await open_pool(unreachable_postgres_url(), name="unreachable", connect_timeout=0.5)
    try:
        with pytest.raises(ServiceError) as refused:
            await PostgresThreadLocks(pool).claim(THREAD)
    finally:
        await pool.close()

    assert refused.value.status == 503 and refused.value.error_type == "CHECKPOINTER_UNAVAILABLE"
    assert refused.value.can_retry is True


async def test_in_process_locks_refuse_a_second_claim_until_released():
    locks = InProcessThreadLocks()
    release = await locks.claim(THREAD)

    with pytest.raises(ServiceError) as refused:
        await locks.claim(THREAD)

    assert_busy(refused.value)
    await release()
    assert await locks.is_running(THREAD) is False

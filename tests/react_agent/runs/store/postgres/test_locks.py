"""Thread claims: one run per thread, also across processes sharing PostgreSQL."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import psycopg
import pytest

from react_agent.databases.postgres.pool import open_pool
from react_agent.errors import ServiceError
from react_agent.runs.store.local import InProcessThreadLocks
from react_agent.runs.store.locks import liveness_key
from react_agent.runs.store.postgres.locks import LOCK_SESSION_NAME, PostgresThreadLocks
from tests.react_agent.databases.test_postgres_database import scalar
from tests.support.held_runs import poll_until
from tests.support.postgres import unreachable_postgres_url

THREAD = "wang1:20250131103000001"

# Advisory locks granted in the test's database, and the sessions holding them.
ADVISORY_LOCKS_SQL = """
    SELECT count(*), count(DISTINCT pid) FROM pg_locks
    WHERE locktype = 'advisory' AND granted
      AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
"""


@pytest.fixture
async def two_locks(postgres_database: str) -> AsyncIterator[tuple[PostgresThreadLocks, ...]]:
    """Yield claims on two separate pools of one database: two service processes."""
    first = await open_pool(postgres_database, name="process-1", max_size=4)
    second = await open_pool(postgres_database, name="process-2", max_size=4)
    here, there = PostgresThreadLocks(first), PostgresThreadLocks(second)
    try:
        yield here, there
    finally:
        for locks in (here, there):
            await locks.aclose()
            await locks.pool.close()


def assert_busy(error: ServiceError) -> None:
    assert error.status == 409 and error.error_type == "THREAD_BUSY"
    assert error.can_retry is True


def advisory_locks(url: str) -> tuple[int, int]:
    """Return (locks, sessions holding them) of the database at `url`."""
    with psycopg.connect(url, autocommit=True) as connection:
        row = connection.execute(ADVISORY_LOCKS_SQL).fetchone()
    assert row is not None
    return row[0], row[1]


def terminate_lock_sessions(url: str) -> None:
    """End the sessions holding advisory locks, as a server restart would."""
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_locks "
            "WHERE locktype = 'advisory' AND pid <> pg_backend_pid()"
        )


async def test_a_thread_claimed_in_one_process_is_busy_in_another_until_released(two_locks):
    here, there = two_locks

    release = await here.claim(THREAD)
    with pytest.raises(ServiceError) as refused:
        await there.claim(THREAD)
    assert_busy(refused.value)
    other_thread = await there.claim("wang1:other")  # only that thread is taken

    await release()
    release_there = await there.claim(THREAD)
    await release_there()
    await other_thread()


async def test_a_second_claim_in_the_same_process_is_busy_too(two_locks):
    locks = two_locks[0]

    release = await locks.claim(THREAD)
    with pytest.raises(ServiceError) as refused:
        await locks.claim(THREAD)
    assert_busy(refused.value)
    await release()


async def test_of_two_claims_at_once_in_one_process_exactly_one_gets_the_thread(two_locks):
    locks = two_locks[0]

    outcomes = await asyncio.gather(
        locks.claim(THREAD), locks.claim(THREAD), return_exceptions=True
    )

    refused = [outcome for outcome in outcomes if isinstance(outcome, ServiceError)]
    releases = [outcome for outcome in outcomes if not isinstance(outcome, BaseException)]
    assert len(refused) == 1 and len(releases) == 1
    assert_busy(refused[0])
    await releases[0]()
    assert await locks.is_running(THREAD) is False


async def test_a_claim_right_after_a_release_in_another_process_gets_the_thread(two_locks):
    here, there = two_locks
    release = await here.claim(THREAD)

    for _ in range(20):  # no grace period: the release must be done when it returns
        await release()
        release = await there.claim(THREAD)
        here, there = there, here

    await release()


async def test_is_running_is_seen_from_the_other_process(two_locks):
    here, there = two_locks
    assert await there.is_running(THREAD) is False

    release = await here.claim(THREAD)
    assert await here.is_running(THREAD) is True
    assert await there.is_running(THREAD) is True
    assert await there.is_running("wang1:other") is False

    await release()
    assert await there.is_running(THREAD) is False


async def test_release_after_the_lock_session_died_does_not_raise_and_frees_the_thread(
    postgres_database, two_locks
):
    here, there = two_locks
    release = await here.claim(THREAD)
    terminate_lock_sessions(postgres_database)  # what a server restart does to it

    await release()

    assert await here.is_running(THREAD) is False
    release_there = await there.claim(THREAD)
    # The dead session is replaced by the next claim, which does not fail for it.
    other_thread = await here.claim("wang1:other")
    await release_there()
    await other_thread()


async def test_runs_keep_their_threads_in_their_process_after_the_session_died(
    postgres_database, two_locks
):
    here, there = two_locks
    release = await here.claim(THREAD)
    terminate_lock_sessions(postgres_database)

    with pytest.raises(ServiceError) as refused:
        await here.claim(THREAD)
    assert_busy(refused.value)
    # Across processes the lock died with its session: the documented outage window.
    release_there = await there.claim(THREAD)

    await release()
    await release_there()


async def test_hundreds_of_claims_share_one_session_and_few_statements(
    postgres_database,
):
    pool = await open_pool(postgres_database, name="busy-process", max_size=2)
    locks = PostgresThreadLocks(pool)
    threads = [f"wang1:{number:03d}" for number in range(200)]
    try:
        releases = await asyncio.gather(*(locks.claim(thread) for thread in threads))

        assert advisory_locks(postgres_database) == (200, 1)
        sessions_sql = (
            "SELECT count(*) FROM pg_stat_activity "
            f"WHERE datname = current_database() AND application_name = '{LOCK_SESSION_NAME}'"
        )
        assert scalar(postgres_database, sessions_sql) == 1
        # Claims that come while a statement is under way go together in the next one.
        assert locks.session.statements <= 2
        assert await locks.is_running(threads[-1]) is True
        # The pool is not used up: were it, nothing would free a connection within any bound.
        async with pool.connection(timeout=60) as connection:
            await connection.execute("SELECT 1")

        await asyncio.gather(*(release() for release in releases))
        assert advisory_locks(postgres_database) == (0, 0)
        assert locks.session.statements <= 4  # the frees, likewise
        assert not any([await locks.is_running(thread) for thread in threads])
    finally:
        await locks.aclose()
        await pool.close()


async def test_a_cancelled_claim_leaves_no_lock_behind(postgres_database, two_locks):
    here, there = two_locks
    await (await here.claim("wang1:warm-up"))()  # the session is open: the claim's one trip

    claiming = asyncio.create_task(here.claim(THREAD))
    await asyncio.sleep(0)  # the claim is on its way to the server
    claiming.cancel()
    with pytest.raises(asyncio.CancelledError):
        await claiming

    deadline = time.monotonic() + 5
    while advisory_locks(postgres_database) != (0, 0) or await here.is_running(THREAD):
        assert time.monotonic() < deadline, "the cancelled claim kept its lock"
        await asyncio.sleep(0.05)
    await (await there.claim(THREAD))()
    await (await here.claim(THREAD))()


async def test_closing_frees_the_threads_and_refuses_later_claims(postgres_database, two_locks):
    here, there = two_locks
    await here.claim(THREAD)

    await here.aclose()

    assert advisory_locks(postgres_database) == (0, 0)
    await (await there.claim(THREAD))()
    with pytest.raises(ServiceError) as refused:
        await here.claim("wang1:other")
    assert refused.value.status == 503 and refused.value.error_type == "CHECKPOINTER_UNAVAILABLE"


async def test_a_claim_while_postgres_is_unreachable_is_a_503():
    pool = await open_pool(unreachable_postgres_url(), name="unreachable", connect_timeout=0.5)
    locks = PostgresThreadLocks(pool)
    try:
        with pytest.raises(ServiceError) as refused:
            await locks.claim(THREAD)
        with pytest.raises(ServiceError) as again:  # a 503 again, not a 409: nothing kept
            await locks.claim(THREAD)
    finally:
        await locks.aclose()
        await pool.close()

    for error in (refused.value, again.value):
        assert error.status == 503 and error.error_type == "CHECKPOINTER_UNAVAILABLE"
        assert error.can_retry is True


async def test_in_process_locks_refuse_a_second_claim_until_released():
    locks = InProcessThreadLocks()
    release = await locks.claim(THREAD)

    with pytest.raises(ServiceError) as refused:
        await locks.claim(THREAD)

    assert_busy(refused.value)
    await release()
    assert await locks.is_running(THREAD) is False


RUN = "run-0001"


async def test_a_claim_for_a_run_holds_its_liveness_and_frees_both_in_one_statement(
    postgres_database, two_locks
):
    here, there = two_locks
    release = await here.claim(THREAD, run_id=RUN)
    claimed = here.session.statements

    assert await there.is_running(THREAD) is True
    assert await there.is_running(liveness_key(RUN)) is True
    assert advisory_locks(postgres_database) == (2, 1)  # one session holds both
    assert claimed == 1  # both in the claim's statement

    await release()  # nobody else held the run: its liveness goes with the thread
    assert here.session.statements == claimed + 1
    assert advisory_locks(postgres_database) == (0, 0)


async def test_a_run_held_by_its_store_stays_alive_after_its_thread_is_freed(
    postgres_database, two_locks
):
    here, there = two_locks
    release = await here.claim(THREAD, run_id=RUN)
    await here.hold_run(RUN)  # the run store, for the stream: no round trip
    assert here.session.statements == 1

    await release()
    assert await there.is_running(THREAD) is False
    assert await there.is_running(liveness_key(RUN)) is True

    here.end_run(RUN)  # the run is marked finished: freed with the next statement
    assert await there.is_running(liveness_key(RUN)) is True
    await (await here.claim("wang1:other"))()
    assert await there.is_running(liveness_key(RUN)) is False
    assert advisory_locks(postgres_database) == (0, 0)


async def test_a_waiting_run_holds_its_liveness_before_its_thread(postgres_database, two_locks):
    here, there = two_locks
    busy = await there.claim(THREAD)
    with pytest.raises(ServiceError) as refused:
        await here.claim(THREAD, run_id=RUN)
    assert_busy(refused.value)
    assert await there.is_running(liveness_key(RUN)) is False  # nothing kept by the refusal

    await here.hold_run(RUN)  # the store opens the waiting run: its own round trip
    await busy()
    release = await here.claim(THREAD, run_id=RUN)  # held already: not taken twice
    here.end_run(RUN)
    assert await there.is_running(liveness_key(RUN)) is True  # the thread's claim holds it

    await release()
    assert advisory_locks(postgres_database) == (0, 0)


async def test_a_run_whose_liveness_another_process_holds_does_not_get_the_thread(
    postgres_database, two_locks
):
    here, there = two_locks
    await there.hold_run(RUN)

    with pytest.raises(ServiceError) as refused:
        await here.claim(THREAD, run_id=RUN)

    assert refused.value.status == 503
    assert await here.is_running(THREAD) is False  # the thread taken first was given back
    assert advisory_locks(postgres_database) == (1, 1)  # only there's hold is left
    there.end_run(RUN)


async def test_frees_of_a_session_that_died_are_not_sent_to_the_new_one(
    postgres_database, two_locks
):
    here, there = two_locks
    release = await here.claim(THREAD, run_id=RUN)
    await here.hold_run(RUN)
    terminate_lock_sessions(postgres_database)
    other = await here.claim("wang1:other")  # a new session: THREAD's lock died with the old
    newer = await there.claim(THREAD)
    before = here.session.statements

    await release()  # answered without a statement: the lock it frees is gone
    assert here.session.statements == before
    assert await here.is_running(THREAD) is True  # there's claim, untouched
    here.end_run(RUN)
    await other()

    assert advisory_locks(postgres_database) == (1, 1)  # there's thread alone
    await newer()
    assert advisory_locks(postgres_database) == (0, 0)


async def test_a_cancelled_claim_for_a_run_leaves_neither_lock_behind(postgres_database, two_locks):
    here, there = two_locks
    await (await here.claim("wang1:warm-up"))()

    claiming = asyncio.create_task(here.claim(THREAD, run_id=RUN))
    await asyncio.sleep(0)  # the claim is on its way to the server
    claiming.cancel()
    with pytest.raises(asyncio.CancelledError):
        await claiming
    assert await poll_until(lambda: here.is_running(THREAD), False)  # the thread given back
    await (await here.claim("wang1:after"))()  # carries the liveness's free, if it was taken

    assert advisory_locks(postgres_database) == (0, 0)
    assert await there.is_running(liveness_key(RUN)) is False


async def test_a_claim_and_a_hold_of_one_run_at_once_leave_no_lock_behind(
    postgres_database, two_locks
):
    here, there = two_locks
    # A waiting run: its retried claim and its store's hold may be on their way together.
    release, _ = await asyncio.gather(here.claim(THREAD, run_id=RUN), here.hold_run(RUN))

    await release()
    assert await there.is_running(liveness_key(RUN)) is True  # the store still holds it
    here.end_run(RUN)
    await (await here.claim("wang1:other"))()

    assert advisory_locks(postgres_database) == (0, 0)  # taken twice, freed twice


async def test_a_cancelled_hold_of_a_run_leaves_no_lock_behind(postgres_database, two_locks):
    here, there = two_locks
    await (await here.claim("wang1:warm-up"))()

    holding = asyncio.create_task(here.hold_run(RUN))
    await asyncio.sleep(0)  # the hold is on its way to the server
    holding.cancel()
    with pytest.raises(asyncio.CancelledError):
        await holding
    # The hold goes on without its caller and is granted; its lock is then freed with the
    # session's next statement.
    assert await poll_until(lambda: there.is_running(liveness_key(RUN)), True)
    await (await here.claim("wang1:after"))()

    assert advisory_locks(postgres_database) == (0, 0)
    assert await there.is_running(liveness_key(RUN)) is False

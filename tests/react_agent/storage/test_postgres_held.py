"""A writer's statements on one pooled connection, kept while it has more to send."""

from __future__ import annotations

import psycopg
import pytest

from react_agent.databases.postgres import pool as postgres_pool
from react_agent.databases.postgres.pool import open_pool, postgres_conninfo
from react_agent.storage.postgres_held import HeldConnection
from tests.support.held_runs import poll_until


@pytest.fixture
async def pool(postgres_database):
    pool = await open_pool(postgres_database, name="held", min_size=2, max_size=2)
    await pool.wait()
    async with pool.connection() as connection:
        await connection.execute("CREATE TABLE IF NOT EXISTS held (n integer PRIMARY KEY)")
    yield pool
    await pool.close()


async def available(pool) -> int:
    return pool.get_stats()["pool_available"]


async def stored(pool) -> list[int] | None:
    async with pool.connection() as connection:
        cursor = await connection.execute(
            "SELECT coalesce(array_agg(n ORDER BY n), '{}') FROM held"
        )
        (numbers,) = await cursor.fetchone()
        return numbers


async def test_statements_go_on_one_connection_lent_once_until_released(pool):
    held = HeldConnection(pool.connection)
    lent = pool.get_stats().get("requests_num", 0)

    for n in range(5):
        await held.execute("INSERT INTO held (n) VALUES (%s)", (n,))
    assert pool.get_stats()["pool_available"] == 1  # one out, kept between statements
    assert pool.get_stats()["requests_num"] - lent == 1

    await held.release()
    assert await poll_until(lambda: available(pool), 2)  # returned by the pool's worker
    await held.release()  # nothing held: nothing to do
    assert await stored(pool) == [0, 1, 2, 3, 4]


async def test_a_failed_statement_gives_the_connection_back_at_once(pool):
    held = HeldConnection(pool.connection)
    await held.execute("INSERT INTO held (n) VALUES (1)", ())

    with pytest.raises(psycopg.errors.UniqueViolation):
        await held.execute("INSERT INTO held (n) VALUES (1)", ())
    assert await poll_until(lambda: available(pool), 2)

    await held.execute("INSERT INTO held (n) VALUES (2)", ())  # on a connection lent anew
    await held.release()
    assert await stored(pool) == [1, 2]


async def test_a_connection_the_server_dropped_is_replaced_at_the_next_statement(
    pool, postgres_database
):
    held = HeldConnection(pool.connection)
    await held.execute("INSERT INTO held (n) VALUES (1)", ())
    async with pool.connection() as admin:
        await admin.execute(
            "SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            " AND application_name = ''"
            " AND state = 'idle' AND query LIKE 'INSERT INTO held%%'"
        )

    with pytest.raises(psycopg.OperationalError):  # held, not just lent: not sent again
        await held.execute("INSERT INTO held (n) VALUES (2)", ())
    await held.execute("INSERT INTO held (n) VALUES (3)", ())
    await held.release()
    assert await stored(pool) == [1, 3]


async def test_connections_a_restarted_server_closed_are_dropped_and_the_statement_sent_again(
    postgres_database, monkeypatch
):
    # A connection back in the pool a moment ago is handed out unchecked; one the server
    # closed meanwhile (a restart within the second) fails the statement sent on it.
    monkeypatch.setattr(postgres_pool, "FRESH_SECONDS", 600.0)
    pool = await open_pool(postgres_database, name="restarted", min_size=3, max_size=3)
    try:
        await pool.wait()
        async with pool.connection() as a, pool.connection() as b, pool.connection() as c:
            closed = [conn.info.backend_pid for conn in (a, b, c)]
            await a.execute("CREATE TABLE held (n integer PRIMARY KEY)")
        async with await psycopg.AsyncConnection.connect(
            postgres_conninfo(postgres_database), autocommit=True
        ) as admin:
            await admin.execute(
                "SELECT pg_terminate_backend(pid, 10000) FROM unnest(%s::integer[]) AS pid",
                [closed],
            )

        held = HeldConnection(pool.connection)
        await held.execute("INSERT INTO held (n) VALUES (1)", ())  # no error: sent again
        await held.release()

        async with pool.connection() as connection:
            assert connection.info.backend_pid not in closed
        assert await stored(pool) == [1]
    finally:
        await pool.close()

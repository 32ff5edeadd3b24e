"""Connections are checked at checkout only when idle for a while (FRESH_SECONDS)."""

from __future__ import annotations

import psycopg
import pytest

from react_agent.databases.postgres import pool as postgres_pool
from react_agent.databases.postgres.pool import open_pool, postgres_conninfo


async def terminate_backend_of_the_pooled_connection(url: str, pool) -> int:
    """Kill the pooled connection's server process (waiting until it is gone); its pid."""
    async with pool.connection() as connection:
        pid = connection.info.backend_pid
    async with await psycopg.AsyncConnection.connect(
        postgres_conninfo(url), autocommit=True
    ) as admin:
        await admin.execute("SELECT pg_terminate_backend(%s, 10000)", [pid])
    return pid


async def test_a_connection_idle_past_the_window_is_checked_and_replaced(
    postgres_database, monkeypatch
):
    monkeypatch.setattr(postgres_pool, "FRESH_SECONDS", 0.0)
    pool = await open_pool(postgres_database, name="checked", min_size=1, max_size=1)
    try:
        dead = await terminate_backend_of_the_pooled_connection(postgres_database, pool)
        async with pool.connection() as connection:
            assert connection.info.backend_pid != dead
            cursor = await connection.execute("SELECT 1")
            assert await cursor.fetchone() == (1,)
    finally:
        await pool.close()


async def test_a_connection_back_a_moment_ago_is_handed_out_without_a_round_trip(
    postgres_database, monkeypatch
):
    monkeypatch.setattr(postgres_pool, "FRESH_SECONDS", 3600.0)
    pool = await open_pool(postgres_database, name="unchecked", min_size=1, max_size=1)
    try:
        dead = await terminate_backend_of_the_pooled_connection(postgres_database, pool)
        # Not checked: the same connection comes back, and only using it shows it died.
        with pytest.raises(psycopg.OperationalError):
            async with pool.connection() as connection:
                assert connection.info.backend_pid == dead
                await connection.execute("SELECT 1")
        async with pool.connection() as connection:  # the broken one was discarded
            assert connection.info.backend_pid != dead
    finally:
        await pool.close()

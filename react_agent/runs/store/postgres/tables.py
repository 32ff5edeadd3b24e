"""The run store's statements on PostgreSQL: pooled connections, and the tables' chores."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import psycopg
from psycopg.rows import tuple_row
from psycopg_pool import AsyncConnectionPool, PoolClosed, PoolTimeout

from react_agent.databases.postgres.pool import unavailable


def refused(conninfo: str, reason: Exception) -> Exception:
    """Return what a caller gets when the run store's database refused `reason`'s statement.

    A database error (a server that cannot be used, or a row it would not take) is a 503
    CHECKPOINTER_UNAVAILABLE, as elsewhere, caused by `reason`; anything else is `reason`.
    """
    if not isinstance(reason, psycopg.Error | PoolTimeout | PoolClosed):
        return reason
    error = unavailable("CHECKPOINTER_UNAVAILABLE", "PostgreSQL run store", conninfo, reason)
    error.__cause__ = reason
    return error


class RunTables:
    """Statements on the `runs`, `run_events` and `thread_ids` tables.

    Each runs on a pooled connection; a server that cannot be used is a 503
    CHECKPOINTER_UNAVAILABLE.

    Args:
        pool: The checkpointer's pool (its database holds the run tables).

    """

    def __init__(self, pool: AsyncConnectionPool) -> None:
        self.pool = pool

    async def execute(self, query: str, params: tuple[Any, ...]) -> None:
        """Run one statement."""
        async with self.connection() as connection:
            await connection.execute(query, params)

    async def fetch(self, query: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        """Run one statement and return its rows as tuples."""
        async with self.connection() as connection:
            async with connection.cursor(row_factory=tuple_row) as cursor:
                await cursor.execute(query, params)
                return await cursor.fetchall()

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        """Lend a pooled connection; a server that cannot be used is a 503, as elsewhere."""
        try:
            async with self.pool.connection() as connection:
                yield connection
        except (psycopg.Error, PoolTimeout, PoolClosed) as exc:
            raise refused(str(self.pool.conninfo), exc) from exc

    async def read_after(self, run_id: str, after: int) -> tuple[str | None, list[Any]]:
        """Return the run's status and its events after `after`, from one snapshot."""
        rows = await self.fetch(
            "SELECT r.status, e.seq, e.payload FROM runs r"
            " LEFT JOIN run_events e ON e.run_id = r.run_id AND e.seq > %s"
            " WHERE r.run_id = %s ORDER BY e.seq",
            (after, run_id),
        )
        if not rows:
            return None, []
        return rows[0][0], [(seq, payload) for _, seq, payload in rows if seq is not None]

    async def expire(self, ttl: float, max_run_seconds: float) -> int:
        """Delete ended runs older than `ttl` (and runs a dead owner left); return how many."""
        rows = await self.fetch(
            "WITH gone AS (DELETE FROM runs WHERE"
            " (status <> 'running' AND updated_at < now() - make_interval(secs => %s))"
            " OR created_at < now() - make_interval(secs => %s) RETURNING 1)"
            " SELECT count(*) FROM gone",
            (ttl, ttl + max_run_seconds),
        )
        # Only a clock running behind (by more than the TTL) could hand these out again.
        await self.execute(
            "DELETE FROM thread_ids WHERE created_at < now() - make_interval(secs => %s)", (ttl,)
        )
        return int(rows[0][0])

"""Read-only access to a PostgreSQL database that questions are about."""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection, Mapping
from contextlib import AbstractAsyncContextManager, aclosing, asynccontextmanager
from functools import partial
from typing import Any, Unpack

import psycopg
from psycopg_pool import AsyncConnectionPool

from react_agent.databases.base import QueryFailed, SessionSettings, TableInfo
from react_agent.databases.catalog_model import Catalog
from react_agent.databases.postgres import catalog
from react_agent.databases.postgres.pool import PoolOptions, open_pool, ping_pool, unavailable
from react_agent.databases.postgres.session import (
    bindable,
    forget_session_state,
    read_only,
    translate_error,
)
from react_agent.databases.records import QueryResult, unique_column_names
from react_agent.databases.row_streams import RowReader
from react_agent.databases.statement_engine import Statement, StatementEngine, capped_result


class PostgresDatabase(StatementEngine):
    """A PostgreSQL database queried in read-only transactions from its own pool.

    Args:
        pool: The pool queries run on; closed by `aclose`.

    """

    dialect = "postgres"
    stream_errors = (psycopg.Error,)

    def __init__(self, pool: AsyncConnectionPool) -> None:
        self.pool = pool

    @classmethod
    async def open(cls, url: str, **options: Unpack[PoolOptions]) -> PostgresDatabase:
        """Open a pool for `url` without waiting for the server to answer.

        Args:
            url: `postgresql://`, `postgres://` or `postgresql+psycopg://` URL.
            options: Pool options (sizes, lifetimes, prepare threshold, timeouts).

        """
        pool = await open_pool(url, name="data-database", reset=forget_session_state, **options)
        return cls(pool)

    async def list_tables(self) -> list[str]:
        """Return the tables and views of the search_path schemas that may be read."""
        async with self._read_only() as connection:
            return await catalog.list_tables(connection)

    async def describe_tables(self, names: list[str]) -> list[TableInfo]:
        """Return columns and row counts of the named tables that exist, in the order asked."""
        async with self._read_only() as connection:
            return await catalog.describe_tables(connection, names)

    async def introspect(
        self, *, sensitive: Collection[str] = frozenset(), max_distinct: int = 200
    ) -> Catalog:
        """Return the catalogue of the readable tables, with COMMENT ON and reltuples."""
        async with self._read_only() as connection:
            return await catalog.introspect_postgres(
                connection,
                sensitive=frozenset(name.lower() for name in sensitive),
                max_distinct=max_distinct,
            )

    async def run_query(
        self,
        sql: str,
        *,
        row_limit: int,
        timeout: float,
        params: Mapping[str, Any] | None = None,
        session: SessionSettings | None = None,
    ) -> QueryResult:
        """Run `sql` in a read-only transaction, keeping at most `row_limit` rows.

        The server stops the query at `timeout` seconds; cancelling the caller cancels it
        on the server too. Only `row_limit + 1` rows are fetched; when there are more,
        the true total is counted under the same timeout.

        Raises:
            QueryFailed: The server refused or stopped the query (the model reads why).
            ServiceError: 503 DATABASE_UNAVAILABLE when the server cannot be reached.

        """
        sql, bound = bindable(sql, params)
        async with self._read_only(timeout, session, sql) as connection:
            cursor = connection.cursor()
            raw: list[tuple[Any, ...]] = []
            # stream() fetches row by row, so a huge result never lands in memory, and it
            # uses the extended protocol, which refuses `SELECT 1; COMMIT; DELETE …`.
            # Leaving early cancels the rest of the query on the server.
            async with aclosing(cursor.stream(sql, bound)) as rows:
                async for row in rows:
                    raw.append(row)
                    if len(raw) > row_limit:
                        break
            description = cursor.description
        if description is None:
            # psycopg drops the description of a result without rows; ask for it.
            description = await self._describe_result(sql, timeout, bound, session)
        columns = unique_column_names(column.name for column in description)
        count = partial(self._count_result, sql, timeout, bound, session)
        return await capped_result(columns, raw, row_limit, count)

    async def _describe_result(
        self,
        sql: str,
        timeout: float,
        params: Mapping[str, Any] | None,
        session: SessionSettings | None,
    ) -> list[psycopg.Column]:
        try:
            async with self._read_only(timeout, session, sql) as connection:
                # LIMIT 0 lets the planner skip the work; only the columns come back.
                cursor = await connection.execute(
                    f"SELECT * FROM ({_as_subquery(sql)}\n) AS q LIMIT 0", params, binary=True
                )
                return list(cursor.description or [])
        except QueryFailed:
            return []  # the statement cannot be a subquery; no rows, so no columns either

    async def _count_result(
        self,
        sql: str,
        timeout: float,
        params: Mapping[str, Any] | None,
        session: SessionSettings | None,
    ) -> int | None:
        async with self._read_only(timeout, session, sql) as connection:
            cursor = await connection.execute(
                f"SELECT count(*) FROM ({_as_subquery(sql)}\n) AS q", params, binary=True
            )
            row = await cursor.fetchone()
            return int(row[0]) if row else None

    async def plan(self, statement: Statement) -> None:
        """Plan the statement with EXPLAIN, which checks names and syntax without running it."""
        text, bound = bindable(statement.sql, statement.params)
        async with self._read_only(
            statement.timeout, statement.session, statement.sql
        ) as connection:
            # binary=True forces the extended protocol: one statement, nothing appended.
            await connection.execute(f"EXPLAIN {text}", bound, binary=True)

    async def ping(self, timeout: float = 3.0) -> None:
        """Raise 503 DATABASE_UNAVAILABLE, with the reason, if the server does not answer."""
        problem = await ping_pool(self.pool, timeout=timeout)
        if problem is not None:
            raise unavailable(
                "DATABASE_UNAVAILABLE", "PostgreSQL data database", self.pool.conninfo, problem
            )

    @asynccontextmanager
    async def open_rows(self, statement: Statement, max_rows: int) -> AsyncIterator[RowReader]:
        """Declare a server-side cursor for the statement in a read-only transaction.

        The transaction's statement timeout then applies to each FETCH, so a slow reader
        does not time the query out.
        """
        sql, bound = bindable(statement.sql, statement.params)
        async with (
            self._read_only(statement.timeout, statement.session, sql) as connection,
            connection.cursor(name="row_stream") as cursor,
        ):
            await cursor.execute(sql, bound)
            columns = unique_column_names(column.name for column in cursor.description or ())
            yield RowReader(columns, cursor.fetchmany, max_rows)

    def stream_failure(self, statement: Statement, exc: Exception) -> Exception:
        """Return what a server error while rows are read means (see session.translate_error)."""
        assert isinstance(exc, psycopg.Error)
        return translate_error(exc, self.pool.conninfo, statement.timeout, statement.sql)

    async def aclose(self) -> None:
        """Close the pool."""
        await self.pool.close()

    def _read_only(
        self,
        timeout: float | None = None,
        session: SessionSettings | None = None,
        statement: str | None = None,
    ) -> AbstractAsyncContextManager[psycopg.AsyncConnection[Any]]:
        return read_only(self.pool, timeout, session, statement)


def _as_subquery(sql: str) -> str:
    return sql.strip().rstrip(";").rstrip()

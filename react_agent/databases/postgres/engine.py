"""Read-only access to a PostgreSQL database that questions are about."""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator, Collection, Mapping
from contextlib import aclosing, asynccontextmanager
from typing import Any, Unpack

import psycopg
from psycopg import errors as pg_errors
from psycopg import sql as pg_sql
from psycopg_pool import AsyncConnectionPool

from react_agent.databases.base import QueryFailed, SessionSettings, TableInfo, statement_timed_out
from react_agent.databases.catalog_model import Catalog
from react_agent.databases.postgres.catalog import introspect_postgres
from react_agent.databases.postgres.pool import (
    PoolOptions,
    is_connection_failure,
    open_pool,
    ping_pool,
    unavailable,
)
from react_agent.databases.records import QueryResult, rows_to_records, unique_column_names
from react_agent.databases.row_streams import RowStream, open_postgres_row_stream, translating
from react_agent.errors import ServiceError

logger = logging.getLogger(__name__)

COUNT_TIMEOUT = 2.0
"""Seconds an exact row count in `describe_tables` may take before the estimate is used."""
EXACT_COUNT_LIMIT = 1_000_000
"""Tables the planner estimates at least this large get the estimate, not a count."""

# Tables, views, materialized views, foreign and partitioned tables: all can be queried.
_QUERYABLE_KINDS = ["r", "v", "m", "f", "p"]

_LIST_TABLES_SQL = """
    SELECT c.relname
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relkind = ANY(%(kinds)s)
      AND n.nspname = ANY(current_schemas(false))
      AND n.nspname NOT IN ('pg_catalog', 'information_schema')
      AND pg_table_is_visible(c.oid)
      AND has_table_privilege(c.oid, 'SELECT')
    ORDER BY c.relname
"""

_COLUMNS_SQL = """
    SELECT c.relname, c.oid::regclass::text, c.reltuples,
           a.attname, format_type(a.atttypid, a.atttypmod)
    FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
    WHERE c.relname = ANY(%(names)s)
      AND c.relkind = ANY(%(kinds)s)
      AND n.nspname = ANY(current_schemas(false))
      AND n.nspname NOT IN ('pg_catalog', 'information_schema')
      AND pg_table_is_visible(c.oid)
      AND has_table_privilege(c.oid, 'SELECT')
    ORDER BY c.relname, a.attnum
"""


async def _forget_session_state(connection: psycopg.AsyncConnection[Any]) -> None:
    # Queries run in rolled-back transactions, but advisory locks taken with
    # pg_advisory_lock() outlive them and would stay with the pooled session.
    await connection.execute("SELECT pg_advisory_unlock_all()")


class PostgresDatabase:
    """A PostgreSQL database queried in read-only transactions from its own pool.

    Args:
        pool: The pool queries run on; closed by `aclose`.

    """

    dialect = "postgres"

    def __init__(self, pool: AsyncConnectionPool) -> None:
        self.pool = pool

    @classmethod
    async def open(cls, url: str, **options: Unpack[PoolOptions]) -> PostgresDatabase:
        """Open a pool for `url` without waiting for the server to answer.

        Args:
            url: `postgresql://`, `postgres://` or `postgresql+psycopg://` URL.
            options: Pool options (sizes, lifetimes, prepare threshold, timeouts).

        """
        pool = await open_pool(url, name="data-database", reset=_forget_session_state, **options)
        return cls(pool)

    async def list_tables(self) -> list[str]:
        """Return the tables and views of the search_path schemas that may be read."""
        async with self._read_only() as connection:
            cursor = await connection.execute(_LIST_TABLES_SQL, {"kinds": _QUERYABLE_KINDS})
            return [name for (name,) in await cursor.fetchall()]

    async def describe_tables(self, names: list[str]) -> list[TableInfo]:
        """Return columns and row counts of the named tables that exist, in the order asked.

        Counts are exact for tables under EXACT_COUNT_LIMIT rows that count within
        COUNT_TIMEOUT; others get the planner's estimate (None if never analysed).
        """
        async with self._read_only() as connection:
            cursor = await connection.execute(
                _COLUMNS_SQL, {"names": list(names), "kinds": _QUERYABLE_KINDS}
            )
            found: dict[str, tuple[str, float, list[tuple[str, str]]]] = {}
            for name, qualified, estimate, column, type_ in await cursor.fetchall():
                _, _, columns = found.setdefault(name, (qualified, estimate, []))
                if column is not None:
                    columns.append((column, type_))
            infos = []
            for name in dict.fromkeys(names):
                if name in found:
                    qualified, estimate, columns = found[name]
                    count = await _count_rows(connection, qualified, estimate)
                    infos.append(TableInfo(name, columns, count))
            return infos

    async def introspect(
        self, *, sensitive: Collection[str] = frozenset(), max_distinct: int = 200
    ) -> Catalog:
        """Return the catalogue of the readable tables, with COMMENT ON and reltuples."""
        async with self._read_only() as connection:
            return await introspect_postgres(
                connection,
                kinds=_QUERYABLE_KINDS,
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
        sql, bound = _bindable(sql, params)
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
        is_limited = len(raw) > row_limit
        total = len(raw)
        if is_limited:
            raw = raw[:row_limit]
            total = await self._count_result(sql, timeout, bound, session, fallback=total)
        return QueryResult(columns, rows_to_records(columns, raw), total, is_limited)

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
        *,
        fallback: int,
    ) -> int:
        try:
            async with self._read_only(timeout, session, sql) as connection:
                cursor = await connection.execute(
                    f"SELECT count(*) FROM ({_as_subquery(sql)}\n) AS q", params, binary=True
                )
                row = await cursor.fetchone()
                return int(row[0]) if row else fallback
        except (QueryFailed, ServiceError) as exc:
            # Counting is a courtesy; the capped rows are still right without it.
            logger.info("could not count the rows of a limited result: %s", exc)
            return fallback

    async def explain(
        self,
        sql: str,
        *,
        timeout: float,
        params: Mapping[str, Any] | None = None,
        session: SessionSettings | None = None,
    ) -> None:
        """Plan `sql` with EXPLAIN, which checks names and syntax without running it."""
        text, bound = _bindable(sql, params)
        async with self._read_only(timeout, session, sql) as connection:
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
    async def open_row_stream(
        self,
        sql: str,
        *,
        max_rows: int,
        timeout: float,
        params: Mapping[str, Any] | None = None,
        session: SessionSettings | None = None,
    ) -> AsyncIterator[RowStream]:
        """Run `sql` read-only through a server-side cursor; each FETCH gets `timeout` s.

        Raises:
            QueryFailed: The server refused or stopped the query.
            ServiceError: 503 DATABASE_UNAVAILABLE when the server cannot be reached.

        """
        sql, bound = _bindable(sql, params)
        async with (
            self._read_only(timeout, session, sql) as connection,
            open_postgres_row_stream(connection, sql, max_rows=max_rows, params=bound) as stream,
        ):
            yield translating(stream, psycopg.Error, lambda exc: self._translate(exc, timeout, sql))

    async def aclose(self) -> None:
        """Close the pool."""
        await self.pool.close()

    @asynccontextmanager
    async def _read_only(
        self,
        timeout: float | None = None,
        session: SessionSettings | None = None,
        statement: str | None = None,
    ) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        """Lend a connection inside a read-only transaction that is always rolled back.

        Rolling back also undoes any `SET` a query made, so nothing carries over to the
        next user of the pooled connection. `session` (a role, `app.*` settings) is set
        transaction-locally, so row level security policies see the asking user. A failure
        of `statement` reaches the caller as QueryFailed, its values redacted.
        """
        try:
            async with (
                self.pool.connection() as connection,
                connection.transaction(force_rollback=True),
            ):
                await connection.execute("SET TRANSACTION READ ONLY")
                if timeout is not None:
                    milliseconds = max(1, round(timeout * 1000))
                    await connection.execute(f"SET LOCAL statement_timeout = {milliseconds}")
                if session is not None:
                    await _apply_session(connection, session)
                yield connection
        except psycopg.Error as exc:
            failure = self._translate(exc, timeout, statement)
            # The driver's own exception (its text unredacted) stays out of tracebacks.
            raise failure from (None if isinstance(failure, QueryFailed) else exc)

    def _translate(
        self, exc: psycopg.Error, timeout: float | None, statement: str | None
    ) -> Exception:
        if is_connection_failure(exc):
            return unavailable(
                "DATABASE_UNAVAILABLE", "PostgreSQL data database", self.pool.conninfo, exc
            )
        if isinstance(exc, pg_errors.QueryCanceled) and timeout is not None:
            if "statement timeout" in (exc.diag.message_primary or ""):
                return statement_timed_out(timeout)
        message = (exc.diag.message_primary or str(exc)).strip() or type(exc).__name__
        return QueryFailed(message, statement)


async def _count_rows(
    connection: psycopg.AsyncConnection[Any], qualified_name: str, estimate: float
) -> int | None:
    if estimate >= EXACT_COUNT_LIMIT:
        return int(estimate)
    try:
        async with connection.transaction():  # a savepoint: a failure spoils only this count
            milliseconds = round(COUNT_TIMEOUT * 1000)
            await connection.execute(f"SET LOCAL statement_timeout = {milliseconds}")
            # The name is regclass output from the server: quoted and qualified as needed.
            cursor = await connection.execute(
                pg_sql.SQL("SELECT count(*) FROM {}").format(pg_sql.SQL(qualified_name))
            )
            row = await cursor.fetchone()
            return int(row[0]) if row else None
    except psycopg.Error as exc:
        if is_connection_failure(exc):
            raise
        return int(estimate) if estimate >= 0 else None


async def _apply_session(
    connection: psycopg.AsyncConnection[Any], session: SessionSettings
) -> None:
    """Set the role and `app.*` settings for this transaction only (is_local = true)."""
    for name, value in session.settings.items():
        await connection.execute("SELECT set_config(%s, %s, true)", (name, value))
    if session.role:
        # Last: the role may not be allowed to call set_config on custom settings' names.
        await connection.execute(
            pg_sql.SQL("SET LOCAL ROLE {}").format(pg_sql.Identifier(session.role))
        )


def _bindable(sql: str, params: Mapping[str, Any] | None) -> tuple[str, Mapping[str, Any] | None]:
    """Return the SQL and params for psycopg: with params, every other `%` is doubled."""
    if not params:
        return sql, None
    names = "|".join(re.escape(name) for name in params)
    return re.sub(rf"%(?!\((?:{names})\)s)", "%%", sql), params


def _as_subquery(sql: str) -> str:
    return sql.strip().rstrip(";").rstrip()

"""Read-only access to a MySQL or MariaDB database that questions are about."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Collection, Mapping, Sequence
from contextlib import asynccontextmanager
from functools import partial
from typing import Any
from urllib.parse import urlsplit

import asyncmy
from asyncmy.cursors import SSCursor

from react_agent.databases.base import QueryFailed, SessionSettings, TableInfo
from react_agent.databases.catalog_model import Catalog
from react_agent.databases.described_tables import DescribedTables
from react_agent.databases.mysql.catalog import introspect_mysql
from react_agent.databases.mysql.connection import (
    bindable,
    connect_options,
    kill_query,
    shown_url,
    warn_about_write_privileges,
)
from react_agent.databases.mysql.families import WITHOUT_READ_ONLY_TRANSACTIONS, server_family
from react_agent.databases.mysql.session import (
    batch_time,
    fetch_all,
    read_only_session,
    translate_error,
    unavailable,
)
from react_agent.databases.records import QueryResult, unique_column_names
from react_agent.databases.row_streams import RowReader
from react_agent.databases.statement_engine import Statement, StatementEngine, capped_result
from react_agent.errors import ServiceError

logger = logging.getLogger(__name__)

COUNT_TIMEOUT = 2.0
"""Seconds an exact row count in `describe_tables` may take before the estimate is used."""
EXACT_COUNT_LIMIT = 1_000_000
"""Tables the server estimates at least this large get the estimate, not a count."""

_COLUMNS_SQL = (
    "SELECT t.table_name, t.table_rows, t.table_comment, c.column_name, c.column_type, "
    "c.column_comment FROM information_schema.tables t "
    "LEFT JOIN information_schema.columns c "
    "ON c.table_schema = t.table_schema AND c.table_name = t.table_name "
    "WHERE t.table_schema = DATABASE() ORDER BY t.table_name, c.ordinal_position"
)


class MySQLDatabase(StatementEngine):
    """A MySQL or MariaDB database queried in read-only transactions from an asyncmy pool.

    Args:
        pool: The pool queries run on; closed by `aclose`.
        options: The pool's connection keywords, for the side connection that kills a query.

    """

    dialect = "mysql"
    stream_errors = (asyncmy.errors.Error,)

    def __init__(self, pool: Any, options: dict[str, Any], family: str = "mysql") -> None:
        self.pool = pool
        self.options = options
        self.family = family
        """The family the URL's scheme names (mysql/families; the server may name another)."""
        self.tables = DescribedTables(self._read_catalogue)

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        min_size: int = 0,
        max_size: int = 10,
        connect_timeout: float = 5.0,
        **_: Any,
    ) -> MySQLDatabase:
        """Open a pool for `url` (the server may be down); warn when the account may write.

        Args:
            url: `mysql://user:pass@host:port/db` or `mariadb://…`.
            min_size: Connections kept open when idle.
            max_size: Most connections at once.
            connect_timeout: Seconds to wait for the server.

        """
        options = connect_options(url, connect_timeout=connect_timeout)
        pool = await asyncmy.create_pool(minsize=min_size, maxsize=max_size, **options)
        database = cls(pool, options, urlsplit(url).scheme.split("+")[0].lower())
        try:
            async with pool.acquire() as connection:
                await warn_about_write_privileges(connection, shown_url(options))
                family = server_family(connection.get_server_info(), database.family)
                if family in WITHOUT_READ_ONLY_TRANSACTIONS:
                    logger.warning(
                        "%s data database %s has no read-only transactions: the SQL guard "
                        "alone keeps its statements read-only (use a read-only account)",
                        family,
                        shown_url(options),
                    )
        except (asyncmy.errors.Error, OSError) as exc:
            # Like PostgreSQL's pool: the service comes up, /health says why, and the
            # next query connects once the server answers.
            logger.warning("MySQL data database %s: %s", shown_url(options), exc)
        return database

    async def list_tables(self) -> list[str]:
        """Return the tables and views of the URL's database that the account can see."""
        return await self.tables.names()

    async def describe_tables(self, names: list[str]) -> list[TableInfo]:
        """Return columns (with their comments) and row counts of the named tables.

        Counts are exact for tables the server estimates under EXACT_COUNT_LIMIT rows
        that count within COUNT_TIMEOUT; others get the estimate. What the catalogue says
        is kept a while (described_tables): information_schema is slow to read (MariaDB
        opens every table's definition), and a hundred questions at once each listing
        the tables would otherwise queue on it.
        """
        return await self.tables.describe(names)

    async def _read_catalogue(self) -> dict[str, TableInfo]:
        found: dict[str, tuple[int | None, str, list[tuple[str, str]]]] = {}
        async with self._read_only(COUNT_TIMEOUT * 5) as connection:
            for table, estimate, comment, column, type_, note in await fetch_all(
                connection, _COLUMNS_SQL
            ):
                _, _, columns = found.setdefault(str(table), (estimate, comment or "", []))
                if column is not None:
                    shown = f"{type_} COMMENT {_quoted(note)}" if note else str(type_)
                    columns.append((str(column), shown))
        return {
            name: TableInfo(name, columns, await self._count_table(name, estimate), comment)
            for name, (estimate, comment, columns) in found.items()
        }

    async def introspect(
        self, *, sensitive: Collection[str] = frozenset(), max_distinct: int = 200
    ) -> Catalog:
        """Return the catalogue: information_schema's columns, keys, comments and estimates."""

        async def fetch(sql: str) -> list[tuple[Any, ...]]:
            async with self._read_only(COUNT_TIMEOUT * 5) as connection:
                return await fetch_all(connection, sql)

        return await introspect_mysql(
            fetch, sensitive=frozenset(n.lower() for n in sensitive), max_distinct=max_distinct
        )

    async def _count_table(self, name: str, estimate: int | None) -> int | None:
        if estimate is not None and estimate >= EXACT_COUNT_LIMIT:
            return int(estimate)
        quoted = "`" + name.replace("`", "``") + "`"
        try:
            async with self._read_only(COUNT_TIMEOUT) as connection:
                ((count,),) = await fetch_all(connection, f"SELECT COUNT(*) FROM {quoted}")
                return int(count)
        except QueryFailed:
            return None if estimate is None else int(estimate)

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

        The server stops the query at `timeout` seconds and sends at most `row_limit + 1`
        rows; cancelling the caller kills the query on the server. `params` binds the
        scope's `:name` placeholders; `session` (roles, settings) has no MySQL meaning.

        Raises:
            QueryFailed: The server refused or stopped the query (the model reads why).
            ServiceError: 503 DATABASE_UNAVAILABLE when the server cannot be reached.

        """
        async with (
            self._read_only(timeout, select_limit=row_limit + 1, statement=sql) as connection,
            connection.cursor() as cursor,
        ):
            await cursor.execute(*bindable(sql, params))
            raw = list(await cursor.fetchall())
            description = cursor.description or ()
        columns = unique_column_names(str(column[0]) for column in description)
        count = partial(self._count_result, sql, params, timeout)
        return await capped_result(columns, raw, row_limit, count)

    async def _count_result(
        self, sql: str, params: Mapping[str, Any] | None, timeout: float
    ) -> int:
        async with self._read_only(timeout, statement=sql) as connection:
            ((count,),) = await fetch_all(
                connection, f"SELECT COUNT(*) FROM ({_as_subquery(sql)}\n) AS q", params
            )
            return int(count)

    async def plan(self, statement: Statement) -> None:
        """Plan the statement with EXPLAIN, which checks names and syntax without running it.

        MariaDB runs constant subqueries while planning: what is planned must be the
        scoped statement.
        """
        async with self._read_only(statement.timeout, statement=statement.sql) as connection:
            await fetch_all(connection, f"EXPLAIN {statement.sql}", statement.params)

    async def ping(self, timeout: float = 3.0) -> None:
        """Raise 503 DATABASE_UNAVAILABLE, with the reason, if the server does not answer."""
        try:
            async with asyncio.timeout(timeout), self._read_only(timeout) as connection:
                await fetch_all(connection, "SELECT 1")
        except TimeoutError as exc:
            raise self._unavailable(f"no answer within {timeout:g} s") from exc

    @asynccontextmanager
    async def open_rows(self, statement: Statement, max_rows: int) -> AsyncIterator[RowReader]:
        """Run the statement read-only and unbuffered, each batch timed by the client.

        MySQL's time limits cover a whole statement, so here the client times each
        batch; a batch that runs out of time, or a reader that leaves early, kills the
        query on the server instead of draining the rest of it.
        """
        sql, timeout = statement.sql, statement.timeout
        async with self._read_only(None, select_limit=max_rows, statement=sql) as connection:
            cursor = connection.cursor(SSCursor)
            reader: RowReader | None = None
            try:
                async with batch_time(timeout):
                    await cursor.execute(*bindable(sql, statement.params))
                columns = unique_column_names(str(c[0]) for c in cursor.description or ())

                async def fetch(size: int) -> Sequence[Sequence[Any]]:
                    async with batch_time(timeout):
                        return await cursor.fetchmany(size)

                reader = RowReader(columns, fetch, max_rows)
                yield reader
            finally:
                if reader is not None and reader.finished:
                    await cursor.close()
                else:
                    await asyncio.shield(kill_query(self.options, connection.thread_id()))
                    connection.close()  # unread rows: dropped with it, never drained

    def stream_failure(self, statement: Statement, exc: Exception) -> Exception:
        """Return what a server error while rows are read means (session.translate_error)."""
        assert isinstance(exc, asyncmy.errors.Error)
        return translate_error(exc, statement.timeout, self.options, statement.sql)

    async def aclose(self) -> None:
        """Close the pool."""
        self.pool.close()
        await self.pool.wait_closed()

    @asynccontextmanager
    async def _read_only(
        self,
        timeout: float | None,
        *,
        select_limit: int | None = None,
        statement: str | None = None,
    ) -> AsyncIterator[Any]:
        async with read_only_session(
            self.pool, self.options, timeout, select_limit, statement, self.family
        ) as connection:
            yield connection

    def _unavailable(self, problem: str) -> ServiceError:
        return unavailable(self.options, problem)


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _as_subquery(sql: str) -> str:
    return sql.strip().rstrip(";").rstrip()

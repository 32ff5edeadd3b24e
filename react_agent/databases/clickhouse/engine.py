"""Read-only access to a ClickHouse database that questions are about (server or chdb)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Collection, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from functools import partial
from typing import Any, TypeVar

from clickhouse_connect.driver.client import Client
from clickhouse_connect.driver.exceptions import ClickHouseError

from react_agent.databases.base import QueryFailed, SessionSettings, TableInfo, statement_timed_out
from react_agent.databases.catalog_model import Catalog
from react_agent.databases.clickhouse.catalog import (
    COLUMNS_SQL,
    TABLES_SQL,
    describe_clickhouse,
    introspect_clickhouse,
)
from react_agent.databases.clickhouse.connection import (
    Target,
    bindable,
    connect,
    kill,
    new_marker,
    query_settings,
    target_from_url,
    translate_error,
    unavailable,
)
from react_agent.databases.records import QueryResult, unique_column_names
from react_agent.databases.row_streams import RowReader
from react_agent.databases.statement_engine import Statement, StatementEngine, capped_result
from react_agent.errors import ServiceError

logger = logging.getLogger(__name__)
T = TypeVar("T")

KILL_GRACE = 2.0
"""Seconds past the statement timeout before the client kills a query the server has not."""
STREAM_BLOCK_ROWS = 10_000
"""Rows per block of an export (the server's max_block_size for it)."""
CATALOG_TIMEOUT = 10.0
"""Seconds each catalogue query (system.tables, system.columns, distinct values) may take."""


class ClickHouseDatabase(StatementEngine):
    """A ClickHouse database queried read-only through clickhouse-connect clients.

    Each query borrows a client of its own (at most `max_size` at once) and runs in a
    worker thread, the driver being synchronous; a cancelled or overdue query is killed
    on the server with KILL QUERY from a separate client, by the marker it was tagged with.

    Args:
        target: Where the clients connect (a server over HTTP(S), or chdb's folder).
        max_size: Most queries at once.

    """

    dialect = "clickhouse"
    stream_errors = (ClickHouseError,)

    def __init__(self, target: Target, max_size: int = 10) -> None:
        self.target = target
        self._idle: list[Client] = []
        self._slots = asyncio.Semaphore(max_size)
        self._workers = ThreadPoolExecutor(max_size, thread_name_prefix="clickhouse")
        self._killer = ThreadPoolExecutor(1, thread_name_prefix="clickhouse-kill")
        self._kill_client: Client | None = None

    @classmethod
    async def open(
        cls, url: str, *, max_size: int = 10, connect_timeout: float = 5.0, **_: Any
    ) -> ClickHouseDatabase:
        """Open `url` (the server may be down: the first query connects then)."""
        database = cls(target_from_url(url, connect_timeout=connect_timeout), max_size)
        try:
            await database.ping()
        except ServiceError as exc:
            logger.warning("%s", exc.detail)
        return database

    async def list_tables(self) -> list[str]:
        """Return the tables and views of the URL's database."""
        return [table.name for table in await self.describe_tables(None)]

    async def describe_tables(self, names: list[str] | None) -> list[TableInfo]:
        """Return columns (with their comments), row counts and comments of the named tables."""
        rows = await self._catalogue_rows()
        found = {table.name: table for table in describe_clickhouse(*rows)}
        wanted = sorted(found) if names is None else dict.fromkeys(names)
        return [found[name] for name in wanted if name in found]

    async def introspect(
        self, *, sensitive: Collection[str] = frozenset(), max_distinct: int = 200
    ) -> Catalog:
        """Return the catalogue: system.tables and system.columns, comments and values."""
        return await introspect_clickhouse(
            self._fetch,
            sensitive=frozenset(n.lower() for n in sensitive),
            max_distinct=max_distinct,
        )

    async def _catalogue_rows(self) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        return await self._fetch(TABLES_SQL), await self._fetch(COLUMNS_SQL)

    async def _fetch(self, sql: str) -> list[tuple[Any, ...]]:
        result = await self._query(sql, None, CATALOG_TIMEOUT, None)
        return [tuple(row) for row in result.result_rows]

    async def run_query(
        self,
        sql: str,
        *,
        row_limit: int,
        timeout: float,
        params: Mapping[str, Any] | None = None,
        session: SessionSettings | None = None,
    ) -> QueryResult:
        """Run `sql` read-only, keeping at most `row_limit` rows.

        The server stops it at `timeout` seconds and sends about `row_limit + 1` rows; a
        cancelled caller's query is killed on the server. `params` binds the scope's
        placeholders; `session` (roles, settings) has no ClickHouse meaning here.

        Raises:
            QueryFailed: The server refused or stopped the query (the model reads why).
            ServiceError: 503 DATABASE_UNAVAILABLE when the server cannot be reached.

        """
        result = await self._query(sql, params, timeout, row_limit + 1)
        columns = unique_column_names(str(name) for name in result.column_names)
        count = partial(self._count_result, sql, params, timeout)
        return await capped_result(columns, result.result_rows, row_limit, count)

    async def _count_result(
        self, sql: str, params: Mapping[str, Any] | None, timeout: float
    ) -> int:
        counting = f"SELECT count() FROM ({sql.strip().rstrip(';')}\n) AS q"
        result = await self._query(counting, params, timeout, None)
        return int(result.result_rows[0][0])

    async def plan(self, statement: Statement) -> None:
        """Plan the statement with EXPLAIN (names and types checked, nothing read).

        The analyser runs constant scalar subqueries while planning: what is planned must
        be the scoped statement, as the executor gives it.
        """
        await self._query(f"EXPLAIN {statement.sql}", statement.params, statement.timeout, None)

    async def ping(self, timeout: float = 3.0) -> None:
        """Raise 503 DATABASE_UNAVAILABLE, with the reason, if the server does not answer."""
        try:
            async with asyncio.timeout(timeout):
                await self._query("SELECT 1", None, timeout, None)
        except TimeoutError as exc:
            raise unavailable(self.target.shown, f"no answer within {timeout:g} s") from exc
        except QueryFailed as exc:
            raise unavailable(self.target.shown, str(exc)) from exc

    async def _query(
        self, sql: str, params: Mapping[str, Any] | None, timeout: float, row_limit: int | None
    ) -> Any:
        marker = new_marker()
        settings = query_settings(marker, timeout, row_limit=row_limit)
        text = bindable(sql, params)
        async with self._client(timeout, sql) as client:
            return await self._in_thread(
                client,
                marker,
                timeout + KILL_GRACE,
                lambda: client.query(text, parameters=dict(params or {}), settings=settings),
            )

    @asynccontextmanager
    async def open_rows(self, statement: Statement, max_rows: int) -> AsyncIterator[RowReader]:
        """Run the statement read-only and read its rows in blocks, each timed by the client.

        The server's time limit would cover the whole export, so here each block is
        timed by the client; one that runs out of time, or a reader that leaves early,
        kills the query on the server instead of reading the rest of it.
        """
        sql, params, timeout = statement.sql, statement.params, statement.timeout
        marker = new_marker()
        settings = query_settings(marker, None, row_limit=max_rows)
        # Blocks of the server's default size (65,409 rows) would each be a few tens of MB
        # of Python tuples: exports read smaller ones, so memory stays flat.
        settings["max_block_size"] = STREAM_BLOCK_ROWS
        text = bindable(sql, params)
        async with self._client(timeout, sql) as client:
            stream = await self._in_thread(
                client,
                marker,
                timeout,
                lambda: client.query_row_block_stream(
                    text, parameters=dict(params or {}), settings=settings
                ).__enter__(),
            )
            blocks = iter(stream)

            async def fetch(_size: int) -> Sequence[Sequence[Any]]:
                return await self._in_thread(client, marker, timeout, lambda: next(blocks, []))

            columns = unique_column_names(str(c) for c in stream.source.column_names)
            reader = RowReader(columns, fetch, max_rows, batch_size=STREAM_BLOCK_ROWS)
            try:
                yield reader
            finally:
                if not reader.finished:
                    await asyncio.shield(self._kill(marker, wait=False))
                await asyncio.get_running_loop().run_in_executor(
                    self._killer, stream.__exit__, None, None, None
                )

    def stream_failure(self, statement: Statement, exc: Exception) -> Exception:
        """Return what a driver error while blocks are read means (connection.translate_error)."""
        assert isinstance(exc, ClickHouseError)
        return translate_error(exc, self.target.shown, statement.timeout, statement.sql)

    async def aclose(self) -> None:
        """Close the clients and the worker threads."""
        clients = [*self._idle, *([self._kill_client] if self._kill_client else [])]
        self._idle.clear()
        for client in clients:
            client.close()
        self._workers.shutdown(wait=False, cancel_futures=True)
        self._killer.shutdown(wait=False, cancel_futures=True)

    @asynccontextmanager
    async def _client(self, timeout: float | None, statement: str | None) -> AsyncIterator[Client]:
        """Lend a client; its driver errors reach the caller translated (values redacted)."""
        async with self._slots:
            try:
                client = self._idle.pop() if self._idle else await self._connect()
                reusable = False
                try:
                    yield client
                    reusable = True
                finally:
                    if reusable:
                        self._idle.append(client)
            except ClickHouseError as exc:
                failure = translate_error(exc, self.target.shown, timeout, statement)
                raise failure from (None if isinstance(failure, QueryFailed) else exc)

    async def _connect(self) -> Client:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._workers, connect, self.target)
        except ClickHouseError as exc:
            failure = translate_error(exc, self.target.shown, None, None)
            if isinstance(failure, ServiceError):
                raise failure from exc
            raise unavailable(self.target.shown, str(failure)) from exc

    async def _in_thread(
        self, client: Client, marker: str, timeout: float, call: Callable[[], T]
    ) -> T:
        """Run `call` in a worker thread; kill its query if the caller leaves or time runs out.

        A client whose query was abandoned is closed once its thread returns, never lent again.
        """
        future = asyncio.get_running_loop().run_in_executor(self._workers, call)
        try:
            async with asyncio.timeout(timeout):
                return await asyncio.shield(future)
        except (asyncio.CancelledError, TimeoutError) as exc:
            await asyncio.shield(self._kill(marker, wait=True))
            future.add_done_callback(lambda done: _close_after(client, done))
            if isinstance(exc, TimeoutError):
                raise statement_timed_out(timeout) from None
            raise

    async def _kill(self, marker: str, *, wait: bool) -> None:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(10):
                await loop.run_in_executor(self._killer, self._kill_now, marker, wait)
        except (ClickHouseError, TimeoutError, OSError) as exc:
            logger.warning("could not kill ClickHouse query %s: %s", marker, exc)

    def _kill_now(self, marker: str, wait: bool) -> None:
        if self._kill_client is None:
            self._kill_client = connect(self.target)
        kill(self._kill_client, marker, wait=wait)


def _close_after(client: Client, done: asyncio.Future[Any]) -> None:
    """Close the client of an abandoned query once its thread is done (its error dropped)."""
    if not done.cancelled():
        done.exception()
    client.close()

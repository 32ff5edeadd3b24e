"""The generic engine: any database an installed SQLAlchemy dialect reads, read-only, timed."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Collection, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event

from react_agent.databases.base import QueryFailed, SessionSettings, TableInfo
from react_agent.databases.catalog_model import Catalog
from react_agent.databases.described_tables import DescribedTables
from react_agent.databases.generic import catalog
from react_agent.databases.generic.dialects import sqlglot_dialect, tolerate_version_strings
from react_agent.databases.generic.running import StatementRunner
from react_agent.databases.generic.session import (
    connect_arguments,
    guard_statements,
    prepare_connection,
    rules_for,
)
from react_agent.databases.generic.statements import driver_statement
from react_agent.databases.records import QueryResult, unique_column_names
from react_agent.databases.row_streams import STREAM_BATCH_ROWS, RowReader
from react_agent.databases.statement_engine import Statement, StatementEngine, capped_result

COUNT_TIMEOUT = 2.0
"""Seconds one table's row count in `describe_tables` may take before it is left out."""
CATALOGUE_TIMEOUT = 30.0
"""Seconds reading the catalogue through the inspector may take."""


class GenericDatabase(StatementEngine):
    """A database behind a SQLAlchemy engine, each statement in a thread from its own pool.

    Args:
        engine: The SQLAlchemy engine; disposed by `aclose`.
        max_size: Connections (and threads) at most.

    """

    def __init__(self, engine: Any, *, max_size: int) -> None:
        self.engine = engine
        self.sqlalchemy_name = engine.dialect.name
        self.dialect = sqlglot_dialect(self.sqlalchemy_name)
        self.rules = rules_for(self.sqlalchemy_name)
        # The pool's connections and two more threads: a statement waiting for a
        # connection never holds up another's cancel or the ping.
        self.executor = ThreadPoolExecutor(max_size + 2, thread_name_prefix="generic-db")
        self.runner = StatementRunner(engine, self.rules, self.executor)
        self.tables = DescribedTables(self._read_catalogue)

    @classmethod
    def open(cls, url: str, *, max_size: int = 10, connect_timeout: float = 5.0) -> GenericDatabase:
        """Create the engine for a resolved URL (no connection is made yet)."""
        engine = sa.create_engine(
            url,
            pool_size=max_size,
            max_overflow=0,
            pool_timeout=connect_timeout,
            pool_recycle=1800,
            connect_args=connect_arguments(sa.engine.make_url(url).get_dialect().name),
        )
        tolerate_version_strings(engine.dialect)
        name = engine.dialect.name

        @event.listens_for(engine, "connect")
        def _read_only_connection(raw: Any, _record: Any) -> None:
            prepare_connection(name, raw)

        return cls(engine, max_size=max_size)

    async def list_tables(self) -> list[str]:
        """Return the tables and views of the default schema."""
        return await self.tables.names()

    async def describe_tables(self, names: list[str]) -> list[TableInfo]:
        """Return columns (with comments) and row counts of the named tables that exist.

        Kept a while (described_tables), as the MySQL engine does: inspectors ask the
        server a query or more per table.
        """
        return await self.tables.describe(names)

    async def _read_catalogue(self) -> dict[str, TableInfo]:
        def read(connection: Any) -> list[TableInfo]:
            return catalog.describe(connection, catalog.table_names(connection))

        infos = await self.runner.in_session(read, timeout=CATALOGUE_TIMEOUT)
        counted = [
            dataclasses.replace(info, row_count=await self._count_table(info.name))
            for info in infos
        ]
        return {info.name: info for info in counted}

    async def _count_table(self, name: str) -> int | None:
        query = sa.select(sa.func.count()).select_from(sa.table(name))
        try:
            return await self.runner.in_session(
                lambda connection: int(connection.execute(query).scalar_one()),
                timeout=COUNT_TIMEOUT,
            )
        except QueryFailed:
            return None

    async def introspect(
        self, *, sensitive: Collection[str] = frozenset(), max_distinct: int = 200
    ) -> Catalog:
        """Return the catalogue: the inspector's columns, types, keys, comments, text values."""
        wanted = frozenset(name.lower() for name in sensitive)
        return await self.runner.in_session(
            lambda connection: catalog.introspect(
                connection, self.dialect, sensitive=wanted, max_distinct=max_distinct
            ),
            timeout=CATALOGUE_TIMEOUT,
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
        """Run `sql` read-only, keeping at most `row_limit` rows; stop it at `timeout` s.

        Raises:
            QueryFailed: The database refused or stopped the query (the model reads why).
            ServiceError: 503 DATABASE_UNAVAILABLE when the database cannot be reached.

        """
        text, bound = driver_statement(sql, params, self.engine.dialect.paramstyle)

        def fetch(connection: Any) -> tuple[list[str], Sequence[Any]]:
            result = _execute(connection, text, bound, stream=min(row_limit + 1, 1000))
            try:
                return unique_column_names(map(str, result.keys())), result.fetchmany(row_limit + 1)
            finally:
                result.close()

        columns, raw = await self.runner.in_session(
            fetch, timeout=timeout, session=session, cap=row_limit + 1, statement=sql
        )
        count = partial(self._count_result, sql, params, timeout, session)
        return await capped_result(columns, raw, row_limit, count)

    async def _count_result(
        self,
        sql: str,
        params: Mapping[str, Any] | None,
        timeout: float,
        session: SessionSettings | None,
    ) -> int:
        counting = f"SELECT COUNT(*) FROM ({_as_subquery(sql)}\n) q"
        text, bound = driver_statement(counting, params, self.engine.dialect.paramstyle)
        return await self.runner.in_session(
            lambda connection: int(_execute(connection, text, bound).scalar_one()),
            timeout=timeout,
            session=session,
            statement=sql,
        )

    async def plan(self, statement: Statement) -> None:
        """Plan the statement where the dialect can without running it (else: nothing to ask)."""
        if self.rules.explain is None:
            return
        text, bound = driver_statement(
            f"{self.rules.explain}{statement.sql}", statement.params, self.engine.dialect.paramstyle
        )
        await self.runner.in_session(
            lambda connection: _execute(connection, text, bound).fetchall(),
            timeout=statement.timeout,
            session=statement.session,
            statement=statement.sql,
        )

    async def ping(self, timeout: float = 3.0) -> None:
        """Raise 503 DATABASE_UNAVAILABLE, with the reason, if the database does not answer."""
        try:
            await self.runner.in_session(
                lambda connection: connection.execute(sa.select(sa.literal(1))).scalar_one(),
                timeout=timeout,
            )
        except QueryFailed as exc:
            raise self.runner.unavailable(str(exc)) from exc

    @asynccontextmanager
    async def open_rows(self, statement: Statement, max_rows: int) -> AsyncIterator[RowReader]:
        """Run the statement read-only through the driver's streaming cursor, batch by batch.

        A reader that leaves early has the statement stopped and its connection dropped,
        not drained.
        """
        sql, timeout = statement.sql, statement.timeout
        text, bound = driver_statement(sql, statement.params, self.engine.dialect.paramstyle)
        runner = self.runner
        running = runner.statement()
        connection: Any = None
        result: Any = None
        reader: RowReader | None = None

        def start() -> list[str]:
            nonlocal connection, result
            connection = runner.connect(running)
            self.rules.begin(connection, None, statement.session, max_rows)
            result = _execute(connection, text, bound, stream=STREAM_BATCH_ROWS)
            return unique_column_names(map(str, result.keys()))

        async def fetch(size: int) -> Sequence[Sequence[Any]]:
            work = partial(result.fetchmany, size)
            return await runner.call(work, running, timeout=timeout, statement=sql, grace=False)

        try:
            columns = await runner.call(start, running, timeout=timeout, statement=sql, grace=False)
            reader = RowReader(columns, fetch, max_rows)
            yield reader
        finally:
            if connection is not None:
                ending = (connection, result, running, reader is not None and reader.finished)
                await asyncio.shield(
                    asyncio.get_running_loop().run_in_executor(
                        self.executor, lambda: _end_stream(*ending)
                    )
                )

    async def aclose(self) -> None:
        """Close the pool's connections and the threads."""
        await asyncio.to_thread(self.engine.dispose)
        self.executor.shutdown(wait=False, cancel_futures=True)


def _execute(connection: Any, text: str, bound: Any, *, stream: int | None = None) -> Any:
    """Run one of the model's statements as the driver reads it.

    Without parameters `%` stays literal; on SQLite the authorizer watches it.
    """
    guard_statements(connection.dialect.name, connection.connection.dbapi_connection, True)
    options: dict[str, Any] = {"no_parameters": bound is None}
    if stream is not None:
        options.update(stream_results=True, max_row_buffer=stream)
    return connection.execution_options(**options).exec_driver_sql(text, bound)


def _end_stream(connection: Any, result: Any, running: Any, finished: bool) -> None:
    if not finished:
        running.cancel()
    elif result is not None:
        try:
            result.close()  # all read, or the row cap reached: the server sends no more
        except Exception:  # a driver left in a bad state: the connection is dropped
            running.cancelled.set()
    StatementRunner.release(connection, running, finished=finished)


def _as_subquery(sql: str) -> str:
    return sql.strip().rstrip(";").rstrip()

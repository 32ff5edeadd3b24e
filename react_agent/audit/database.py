"""The audit's and the quotas' tables in the conversation database: SQLite or PostgreSQL.

Both dialects take statements written with `?` placeholders and return rows as dicts. The
schema is created once per database under a lock (SQLite's write lock, a PostgreSQL
advisory lock), so several workers starting together do not race on CREATE TABLE.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from react_agent.databases.postgres_pool import open_pool
from react_agent.databases.urls import database_kind, sqlite_path_from_url

SCHEMA_LOCK_KEY = 7_261_303_552
"""PostgreSQL advisory lock key held while the audit's and quotas' tables are created."""


class LedgerDatabase(Protocol):
    """Where audit records and quota counters are kept."""

    dialect: str

    async def fetch_all(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """Return every row of a query (or of a statement's RETURNING)."""
        ...

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run a statement; return the number of rows it changed."""
        ...

    async def create_schema(self, statements: Sequence[str]) -> None:
        """Run idempotent DDL statements under a lock every process shares."""
        ...

    async def aclose(self) -> None:
        """Close the connections."""
        ...


class SQLiteLedgerDatabase:
    """One SQLite connection used from worker threads, one statement at a time."""

    dialect = "sqlite"

    def __init__(self, path: str) -> None:
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._connection = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._connection.row_factory = sqlite3.Row
        self._connection.execute("PRAGMA busy_timeout = 10000")
        self._connection.execute("PRAGMA journal_mode = WAL")
        self._lock = threading.Lock()

    def _run(self, sql: str, params: Sequence[Any]) -> tuple[list[dict[str, Any]], int]:
        with self._lock:
            cursor = self._connection.execute(sql, tuple(params))
            rows = [dict(row) for row in cursor.fetchall()]
            return rows, cursor.rowcount

    async def fetch_all(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """Return every row of a query (or of a statement's RETURNING)."""
        return (await asyncio.to_thread(self._run, sql, params))[0]

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run a statement; return the number of rows it changed."""
        return (await asyncio.to_thread(self._run, sql, params))[1]

    def _create_schema(self, statements: Sequence[str]) -> None:
        with self._lock:
            self._connection.execute("BEGIN IMMEDIATE")
            try:
                for statement in statements:
                    self._connection.execute(statement)
                self._connection.execute("COMMIT")
            except BaseException:
                self._connection.execute("ROLLBACK")
                raise

    async def create_schema(self, statements: Sequence[str]) -> None:
        """Run idempotent DDL statements under SQLite's write lock."""
        await asyncio.to_thread(self._create_schema, statements)

    async def aclose(self) -> None:
        """Close the connection."""
        with self._lock:
            self._connection.close()


class PostgresLedgerDatabase:
    """A small psycopg pool of its own; `?` placeholders become `%s`."""

    dialect = "postgres"

    def __init__(self, pool: AsyncConnectionPool) -> None:
        self.pool = pool

    async def fetch_all(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """Return every row of a query (or of a statement's RETURNING)."""
        async with self.pool.connection() as connection:
            cursor = connection.cursor(row_factory=dict_row)
            await cursor.execute(sql.replace("?", "%s"), tuple(params))
            return await cursor.fetchall() if cursor.description else []

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run a statement; return the number of rows it changed."""
        async with self.pool.connection() as connection:
            cursor = await connection.execute(sql.replace("?", "%s"), tuple(params))
            return cursor.rowcount

    async def create_schema(self, statements: Sequence[str]) -> None:
        """Run idempotent DDL statements under an advisory lock every process shares."""
        async with self.pool.connection() as connection, connection.transaction():
            await connection.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK_KEY,))
            for statement in statements:
                await connection.execute(statement)

    async def aclose(self) -> None:
        """Close the pool."""
        await self.pool.close()


async def open_ledger_database(
    url: str, *, connect_timeout: float = 5.0, max_size: int = 4
) -> LedgerDatabase:
    """Open the database at `url` (`sqlite:///file.db`, `memory` or `postgresql://…`)."""
    kind = database_kind(url)
    if kind == "postgres":
        pool = await open_pool(
            url, name="ledger", min_size=1, max_size=max_size, connect_timeout=connect_timeout
        )
        return PostgresLedgerDatabase(pool)
    if kind == "memory":
        return SQLiteLedgerDatabase(":memory:")
    return SQLiteLedgerDatabase(str(sqlite_path_from_url(url)))
